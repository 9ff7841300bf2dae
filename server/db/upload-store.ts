/** Owns the rows of resumable uploads (uploads, upload_parts) in either database: offsets, parts and the append lease. */
import type { SqlDriver } from './driver.js';
import type { Row } from './types.js';
import { UPLOAD_LEASE, UPLOAD_SQL as SQL } from './upload-sql.js';

export interface NewUpload {
  noteId: string;
  linkId: string;
  marker: string;
  from: string;
  contentType: string;
  /** Lower-case hex SHA-256 the client declared for the whole note. */
  sha256: string;
  /** Total bytes, once the client has said (Upload-Length, or Content-Length with Upload-Complete: ?1). */
  length: number | null;
  /** The phone it came from (server/devices); absent or null when unknown. The note takes it over. */
  deviceId?: string | null;
  createdAt: string;
  /** ms since the epoch; an unfinished upload is removed after this. */
  expiresAt: number;
}

export interface UploadRow extends NewUpload {
  deviceId: string | null;
  /** Bytes durably stored: every part row below it is fsynced/in the bucket. */
  offset: number;
  leaseOwner: string | null;
  leaseUntil: number;
}

export interface UploadPart {
  offset: number;
  bytes: number;
  sha256: string;
  blobKey: string;
}

export interface UploadStore {
  find(noteId: string): Promise<UploadRow | undefined>;
  /** False when an upload for this note already exists. */
  create(upload: NewUpload): Promise<boolean>;
  /** Takes the append lease if it is free or has run out; one holder at a time across servers. */
  lease(noteId: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /** False when the lease was lost (it ran out and someone else took it). */
  renew(noteId: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  release(noteId: string, owner: string): Promise<void>;
  /** Records the length the first time it becomes known. */
  setLength(noteId: string, length: number): Promise<void>;
  /**
   * Adds a stored part at `offset` and moves the offset past it, in one transaction, only while
   * `owner` holds the lease and the offset is still `offset`. The new offset, or undefined if not.
   */
  addPart(noteId: string, owner: string, part: UploadPart): Promise<number | undefined>;
  parts(noteId: string): Promise<UploadPart[]>;
  /** Removes the upload and its part rows (the caller removes the part blobs). */
  remove(noteId: string): Promise<void>;
  /** Unfinished uploads past their expiry whose lease is free. */
  expired(now: number, limit: number): Promise<UploadRow[]>;
  /** Unfinished uploads through any link of a runner's account (for deleting the account). */
  ofAccount(accountId: string): Promise<UploadRow[]>;
  /** What unfinished uploads of one link hold or announced, for the link's quota. */
  pendingFor(linkId: string): Promise<{ uploads: number; bytes: number }>;
}

const num = (v: unknown) => Number(v);
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

const toUpload = (r: Row): UploadRow => ({
  noteId: String(r.note_id),
  linkId: String(r.link_id),
  marker: String(r.marker),
  from: String(r.sender),
  contentType: String(r.content_type),
  sha256: String(r.sha256),
  length: numOrNull(r.upload_length),
  deviceId: r.device_id === null || r.device_id === undefined ? null : String(r.device_id),
  offset: num(r.upload_offset),
  leaseOwner: r.lease_owner === null || r.lease_owner === undefined ? null : String(r.lease_owner),
  leaseUntil: num(r.lease_until),
  createdAt: String(r.created_at),
  expiresAt: num(r.expires_at),
});

const toPart = (r: Row): UploadPart => ({ offset: num(r.part_offset), bytes: num(r.bytes), sha256: String(r.sha256), blobKey: String(r.blob_key) });

export function createUploadStore(sql: SqlDriver): UploadStore {
  return {
    async find(noteId) {
      const [row] = await sql.all(SQL.find, [noteId]);
      return row && toUpload(row);
    },
    async create(u) {
      const changed = await sql.run(SQL.create, [
        u.noteId,
        u.linkId,
        u.marker,
        u.from,
        u.contentType,
        u.sha256,
        u.length,
        u.deviceId ?? null,
        u.createdAt,
        u.expiresAt,
      ]);
      return changed > 0;
    },
    async lease(noteId, owner, now, leaseMs) {
      // RETURNING says whether this caller got it.
      const claim = UPLOAD_LEASE.claim({ where: 'note_id = ?', returning: 'upload_offset' }, { now, leaseMs, owner }, [noteId]);
      return (await sql.all(claim.sql, claim.params)).length > 0;
    },
    async renew(noteId, owner, now, leaseMs) {
      return (await sql.run(UPLOAD_LEASE.renew, [now + leaseMs, noteId, owner])) > 0;
    },
    async release(noteId, owner) {
      await sql.run(SQL.release, [noteId, owner]);
    },
    async setLength(noteId, length) {
      await sql.run(SQL.setLength, [length, noteId]);
    },
    async addPart(noteId, owner, part) {
      const guard = [noteId, owner, part.offset];
      const [, advanced] = await sql.batch([
        [SQL.addPart, [part.bytes, part.sha256, part.blobKey, ...guard]],
        [SQL.advance, [part.bytes, ...guard]],
      ]);
      const row = advanced?.[0];
      return row ? num(row.upload_offset) : undefined;
    },
    async parts(noteId) {
      return (await sql.all(SQL.parts, [noteId])).map(toPart);
    },
    async remove(noteId) {
      await sql.batch([
        [SQL.deleteParts, [noteId]],
        [SQL.deleteUpload, [noteId]],
      ]);
    },
    async expired(now, limit) {
      return (await sql.all(SQL.expired, [now, now, limit])).map(toUpload);
    },
    async ofAccount(accountId) {
      return (await sql.all(SQL.ofAccount, [accountId])).map(toUpload);
    },
    async pendingFor(linkId) {
      const [row] = await sql.all(SQL.pendingBytes, [linkId]);
      return { uploads: num(row?.uploads ?? 0), bytes: num(row?.bytes ?? 0) };
    },
  };
}
