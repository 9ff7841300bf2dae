import type { ReactNode } from 'react';
import type { LinkInfo } from '../outbox/notes.js';
import { MAX_FROM_LENGTH } from '../../contract/limits.js';
import { markerName } from '../i18n/index.js';
import { useT } from '../i18n/useLanguage.js';

interface Props {
  markers: LinkInfo['markers'];
  marker: string;
  name: string;
  onMarker: (id: string) => void;
  onName: (name: string) => void;
  runner: string;
  /** Markers the runner has passed (./Progress.tsx), shown with the word for it. */
  passed?: ReadonlySet<string>;
  /** When the runner is expected at a marker ahead, as a time of day ('10:52 AM'), if the server estimated it (./Estimates.tsx). */
  expectedAt?: (id: string) => string | undefined;
  /** The marker a note sent now can still reach in time, said as suggested. */
  suggested?: string;
  /** Shown right under the picker, before the name: what the chosen marker's time means (./Estimates.tsx). */
  markerNote?: ReactNode;
}

/** Where the runner hears the note, and who it is from. */
export function DetailsFields({ markers, marker, name, onMarker, onName, runner, passed, expectedAt, suggested, markerNote }: Props) {
  const t = useT();
  /**
   * 'Mile 1 (passed)', 'Mile 20 · 10:52 AM (suggested)', or the marker's name alone. The time is
   * bare: with 'about' before it, the chosen line was cut at a phone's width in every language (a
   * picker shows its line on one row); the line under the picker says the times are expected ones.
   */
  const optionText = (id: string, label: string) => {
    const named = markerName(id, label);
    if (passed?.has(id)) return named + t('progress.passedSuffix');
    const time = expectedAt?.(id);
    const line = time === undefined ? named : `${named} · ${time}`;
    return id === suggested ? line + t('eta.suggestedSuffix') : line;
  };
  return (
    <div className="rec-fields">
      <label className="rec-field">
        <span>{t('details.marker')}</span>
        <select name="marker" value={marker} onChange={(e) => onMarker(e.target.value)} required>
          <option value="">{t('details.markerPrompt', { runner })}</option>
          {markers.map((m) => (
            <option key={m.id} value={m.id}>
              {optionText(m.id, m.label)}
            </option>
          ))}
        </select>
      </label>
      {markerNote}
      <label className="rec-field">
        <span>{t('details.name')}</span>
        <input
          type="text"
          name="from"
          value={name}
          maxLength={MAX_FROM_LENGTH}
          autoComplete="name"
          placeholder={t('details.namePlaceholder')}
          onChange={(e) => onName(e.target.value)}
          required
        />
      </label>
    </div>
  );
}
