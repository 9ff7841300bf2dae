/**
 * What the app plays and when: a note waits for its marker and plays when the runner passes it; a
 * note that reaches the phone after its marker was passed plays at once. Each note plays once.
 * Pure: the app feeds it notes as their audio lands on the phone and markers as they are passed.
 */
export interface ReadyNote {
  id: string;
  marker: string;
}

export interface Play {
  noteId: string;
  /** The note's own marker. */
  marker: string;
  /** Where the runner was when it played: its marker, or a later one for a late note. */
  heardAtMarker: string;
  /** True when it played as its marker was passed; false when it came after. */
  atItsMarker: boolean;
  at: number;
}

export class Player {
  private readonly waiting = new Map<string, ReadyNote>();
  private readonly playedIds = new Set<string>();
  readonly plays: Play[] = [];
  private lastMarker: string | undefined;

  constructor(private readonly isPassed: (marker: string) => boolean) {}

  /** A note's audio is on the phone: play it now if its marker is behind the runner, else keep it for the marker. */
  ready(note: ReadyNote, now: number): Play[] {
    if (this.playedIds.has(note.id) || this.waiting.has(note.id)) return [];
    if (this.isPassed(note.marker)) return [this.play(note, this.lastMarker ?? note.marker, false, now)];
    this.waiting.set(note.id, note);
    return [];
  }

  /** The runner passed these markers (in course order): their notes play, in the order they came. */
  passed(markers: readonly string[], now: number): Play[] {
    const plays: Play[] = [];
    for (const marker of markers) {
      this.lastMarker = marker;
      for (const note of [...this.waiting.values()].filter((n) => n.marker === marker)) plays.push(this.play(note, marker, true, now));
    }
    return plays;
  }

  /** The runner took a note off the list: it never plays. */
  remove(noteId: string): void {
    this.waiting.delete(noteId);
    this.playedIds.add(noteId);
  }

  private play(note: ReadyNote, heardAtMarker: string, atItsMarker: boolean, now: number): Play {
    this.waiting.delete(note.id);
    this.playedIds.add(note.id);
    const play = { noteId: note.id, marker: note.marker, heardAtMarker, atItsMarker, at: now };
    this.plays.push(play);
    return play;
  }
}
