/** A backup or restore refused for a reason the operator can act on: printed as is, exit code 2, nothing changed. */
export class BackupRefused extends Error {}
