import type { LinkInfo } from '../shared/notes.js';
import { MAX_FROM_LENGTH } from '../shared/limits.js';

interface Props {
  markers: LinkInfo['markers'];
  marker: string;
  name: string;
  onMarker: (id: string) => void;
  onName: (name: string) => void;
  runner: string;
}

/** Where the runner hears the note, and who it is from. */
export function DetailsFields({ markers, marker, name, onMarker, onName, runner }: Props) {
  return (
    <div className="rec-fields">
      <label className="rec-field">
        <span>Marker</span>
        <select value={marker} onChange={(e) => onMarker(e.target.value)} required>
          <option value="">Choose where {runner} hears it</option>
          {markers.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <label className="rec-field">
        <span>Your name</span>
        <input
          type="text"
          value={name}
          maxLength={MAX_FROM_LENGTH}
          autoComplete="name"
          placeholder="So they know who it's from"
          onChange={(e) => onName(e.target.value)}
          required
        />
      </label>
    </div>
  );
}
