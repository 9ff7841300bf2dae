import { describe, expect, it } from 'vitest';
import { StorageFault, storageFaultOf } from '../../../server/storage/faults.js';

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('which errors are storage faults', () => {
  it.each([
    ['ENOSPC', 'disk_full'],
    ['EDQUOT', 'disk_full'],
    ['SQLITE_FULL', 'disk_full'],
    ['53100', 'disk_full'],
    ['SQLITE_BUSY', 'database_unavailable'],
    ['SQLITE_IOERR_WRITE', 'database_unavailable'],
    ['SQLITE_CANTOPEN', 'database_unavailable'],
    ['57P01', 'database_unavailable'],
    ['57P03', 'database_unavailable'],
    ['08006', 'database_unavailable'],
    ['53300', 'database_unavailable'],
  ])('should call an error with code %s %s', (code, kind) => {
    expect(storageFaultOf(withCode(code))).toBe(kind);
  });

  it('should not call a network error a fault unless a driver says so: a phone cutting its upload gives one too', () => {
    expect(storageFaultOf(withCode('ECONNRESET'))).toBeUndefined();
    expect(storageFaultOf(withCode('ECONNREFUSED'))).toBeUndefined();
    expect(storageFaultOf(new StorageFault('store_unavailable', withCode('ECONNREFUSED')))).toBe('store_unavailable');
  });

  it('should not call a constraint, a bug or a non-error a fault', () => {
    expect(storageFaultOf(withCode('23505'))).toBeUndefined();
    expect(storageFaultOf(withCode('SQLITE_CONSTRAINT_PRIMARYKEY'))).toBeUndefined();
    expect(storageFaultOf(new TypeError('x is undefined'))).toBeUndefined();
    expect(storageFaultOf(undefined)).toBeUndefined();
    expect(storageFaultOf('ENOSPC')).toBeUndefined();
  });

  it('should find a fault behind a cause or inside an AggregateError', () => {
    expect(storageFaultOf(new Error('put failed', { cause: withCode('ENOSPC') }))).toBe('disk_full');
    expect(storageFaultOf(new AggregateError([new Error('x'), withCode('57P01')]))).toBe('database_unavailable');
  });
});
