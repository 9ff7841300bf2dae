import type { LinkInfo } from '../shared/notes.js';
import { MAX_FROM_LENGTH } from '../shared/limits.js';
import { markerName } from './i18n/index.js';
import { useT } from './i18n/useLanguage.js';

interface Props {
  markers: LinkInfo['markers'];
  marker: string;
  name: string;
  onMarker: (id: string) => void;
  onName: (name: string) => void;
  runner: string;
  /** Markers the runner has passed (./Progress.tsx), shown with the word for it. */
  passed?: ReadonlySet<string>;
}

/** Where the runner hears the note, and who it is from. */
export function DetailsFields({ markers, marker, name, onMarker, onName, runner, passed }: Props) {
  const t = useT();
  return (
    <div className="rec-fields">
      <label className="rec-field">
        <span>{t('details.marker')}</span>
        <select value={marker} onChange={(e) => onMarker(e.target.value)} required>
          <option value="">{t('details.markerPrompt', { runner })}</option>
          {markers.map((m) => (
            <option key={m.id} value={m.id}>
              {markerName(m.id, m.label)}
              {passed?.has(m.id) && t('progress.passedSuffix')}
            </option>
          ))}
        </select>
      </label>
      <label className="rec-field">
        <span>{t('details.name')}</span>
        <input
          type="text"
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
