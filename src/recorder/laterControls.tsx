/**
 * The recorder's controls for after a first note: the push controls and the install
 * offer, a chunk of their own (assets/later-<hash>.js) that RecorderScreen loads once one could show
 * (./useLaterControls.ts), so a first visit's path to the Record button never carries them. The
 * marker alert belongs under the record panel: it is drawn there, into the slot the screen keeps.
 * The controls' state and taps stay ./push/usePush.ts's, one for both controls, as before. Their
 * English words are a part of the catalogue of their own (src/i18n/enPush.ts, put in by ./laterWords.ts).
 */
import './laterWords.js';
import { createPortal } from 'react-dom';
import type { OutboxNote } from '../outbox/notes.js';
import { InstallOffer } from './InstallOffer.js';
import { HeardPush, MarkerAlert } from './push/PushControls.js';
import { usePush } from './push/usePush.js';
import './later.css';

export interface LaterControlsProps {
  token: string;
  runner: string;
  notes: readonly OutboxNote[];
  /** A push control could show: a note delivered, or the runner's times to be told ahead of. */
  wanted: boolean;
  delivered: boolean;
  /** Under the record panel, where the marker alert goes. */
  alertSlot: HTMLElement | null;
  marker: string;
  label: string | undefined;
  expectedAt: number | undefined;
  now: number;
}

export default function LaterControls({ token, runner, notes, wanted, delivered, alertSlot, marker, label, expectedAt, now }: LaterControlsProps) {
  const push = usePush(token, runner, wanted);
  return (
    <>
      {alertSlot ? createPortal(<MarkerAlert runner={runner} marker={marker} label={label} expectedAt={expectedAt} now={now} push={push} />, alertSlot) : null}
      {delivered ? <HeardPush runner={runner} push={push} /> : null}
      <InstallOffer runner={runner} notes={notes} />
    </>
  );
}
