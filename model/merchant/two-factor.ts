// Two-factor sign-in (TOTP, RFC 6238, through the `otpauth` library) for one person: the account holder or a team
// member. The secret is sealed at rest with the secrets box (security/secrets.ts), bound to its person by the aad;
// the 10 recovery codes exist in clear only in the answer that shows them, the row keeps their SHA-256 (they carry 50
// random bits each, so a fast hash is enough, as for one-time tokens). A code is accepted for its own 30-second step
// and the steps either side (clock drift), once: the step of the last accepted code is kept and that step and earlier
// ones are refused, so a code seen over a shoulder cannot be replayed. Five wrong codes in a row pause the person's
// code checks for 15 minutes (on top of the per-IP limit of the routes).
import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Db } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import { AppError } from '../../domain/errors.js';

export const TOTP_PERIOD_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;
export const MAX_FAILED_CODES = 5;
export const LOCK_SECONDS = 15 * 60;
const ISSUER = 'Checkout';

/** Whose credential: the account holder (memberId null) or a member. */
export interface TwoFactorSubject {
  merchantId: string;
  memberId: string | null;
}

const subjectIdOf = (s: TwoFactorSubject) => s.memberId ?? s.merchantId;
const aadOf = (subjectId: string) => `${subjectId}:totp`;

function totpOf(secretBase32: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

/** Recovery codes read "xxxxx-xxxxx" from an alphabet without look-alikes (no 0/o, 1/l/i). */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const RECOVERY_CODE_PATTERN = /^[a-z2-9]{5}-?[a-z2-9]{5}$/;
function newRecoveryCode(): string {
  const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]!);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}
const normalizeRecoveryCode = (code: string) => code.trim().toLowerCase().replace(/[\s-]/g, '');
export const hashRecoveryCode = (code: string) => createHash('sha256').update(`recovery:${normalizeRecoveryCode(code)}`).digest('hex');

function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  return { codes, hashes: codes.map(hashRecoveryCode) };
}

export interface TwoFactorStatus {
  enabled: boolean;
  enabledAt: string | null;
  /** An enrolment started and not yet confirmed with a code. */
  pending: boolean;
  recoveryCodesLeft: number;
}

export async function twoFactorStatus(db: Db, subject: TwoFactorSubject): Promise<TwoFactorStatus> {
  const row = await db.twoFactorCredential.findUnique({ where: { subjectId: subjectIdOf(subject) } });
  return {
    enabled: !!row?.enabledAt,
    enabledAt: row?.enabledAt?.toISOString() ?? null,
    pending: !!row && !row.enabledAt,
    recoveryCodesLeft: row?.enabledAt ? row.recoveryCodeHashes.length : 0,
  };
}

/** Is two-factor sign-in on for this person (sign-in then asks for a code after the password)? */
export async function twoFactorEnabled(db: Db, subject: TwoFactorSubject): Promise<boolean> {
  const row = await db.twoFactorCredential.findUnique({ where: { subjectId: subjectIdOf(subject) }, select: { enabledAt: true } });
  return !!row?.enabledAt;
}

/**
 * Starts (or restarts) an enrolment: a new secret, sealed, waiting for its first code. Refused while two-factor is
 * on (disable it first). Answers the secret for manual entry and the otpauth:// URI the QR code carries.
 */
export async function startEnrolment(db: Db, secrets: SecretBox, subject: TwoFactorSubject, label: string): Promise<{ secret: string; otpauthUri: string }> {
  const subjectId = subjectIdOf(subject);
  const existing = await db.twoFactorCredential.findUnique({ where: { subjectId }, select: { enabledAt: true } });
  if (existing?.enabledAt) throw new AppError('CONFLICT', 'Two-factor sign-in is already on: turn it off first to enrol another authenticator');
  const secret = new Secret({ size: 20 }).base32;
  const secretEnc = secrets.encrypt(secret, aadOf(subjectId));
  await db.twoFactorCredential.upsert({
    where: { subjectId },
    create: { subjectId, merchantId: subject.merchantId, memberId: subject.memberId, secretEnc },
    update: { secretEnc, enabledAt: null, lastUsedStep: null, recoveryCodeHashes: [], failedAttempts: 0, lockedUntil: null },
  });
  return { secret, otpauthUri: totpOf(secret, label).toString() };
}

type CredentialRow = NonNullable<Awaited<ReturnType<Db['twoFactorCredential']['findUnique']>>>;

async function recordFailure(db: Db, row: CredentialRow): Promise<never> {
  const failures = row.failedAttempts + 1;
  const lock = failures >= MAX_FAILED_CODES;
  await db.twoFactorCredential.update({
    where: { id: row.id },
    data: lock ? { failedAttempts: 0, lockedUntil: new Date(Date.now() + LOCK_SECONDS * 1000) } : { failedAttempts: failures },
  });
  if (lock) throw new AppError('TWO_FACTOR_LOCKED', `Too many wrong codes: try again in ${LOCK_SECONDS / 60} minutes`, { retryAfterSeconds: LOCK_SECONDS });
  throw new AppError('INVALID_TWO_FACTOR_CODE', 'This code is wrong, expired or already used');
}

function assertNotLocked(row: CredentialRow) {
  if (row.lockedUntil && row.lockedUntil.getTime() > Date.now()) {
    const retryAfterSeconds = Math.ceil((row.lockedUntil.getTime() - Date.now()) / 1000);
    throw new AppError('TWO_FACTOR_LOCKED', `Too many wrong codes: try again in ${Math.ceil(retryAfterSeconds / 60)} minutes`, { retryAfterSeconds });
  }
}

/**
 * Accepts an authenticator code once: its step must be later than the last accepted one, and the step is claimed by a
 * conditional update, so of two requests with the same code exactly one wins. Answers whether it was accepted.
 */
async function acceptTotp(db: Db, secrets: SecretBox, row: CredentialRow, code: string): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const totp = totpOf(secrets.decrypt(row.secretEnc, aadOf(row.subjectId)), 'check');
  const now = Date.now();
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return false;
  const step = totp.counter({ timestamp: now }) + delta;
  const { count } = await db.twoFactorCredential.updateMany({
    where: { id: row.id, OR: [{ lastUsedStep: null }, { lastUsedStep: { lt: step } }] },
    data: { lastUsedStep: step, failedAttempts: 0 },
  });
  return count === 1;
}

/** Accepts a recovery code once: it is removed from the row by a conditional update (one use, even at once). */
async function acceptRecoveryCode(db: Db, row: CredentialRow, code: string): Promise<boolean> {
  if (!RECOVERY_CODE_PATTERN.test(code.trim().toLowerCase())) return false;
  const hash = hashRecoveryCode(code);
  if (!row.recoveryCodeHashes.includes(hash)) return false;
  const count = await db.$executeRaw`
    UPDATE two_factor_credentials SET recovery_code_hashes = array_remove(recovery_code_hashes, ${hash}), failed_attempts = 0
    WHERE id = ${row.id}::uuid AND ${hash} = ANY(recovery_code_hashes)`;
  return count === 1;
}

export type SecondFactorUsed = 'totp' | 'recovery_code';

/**
 * Checks the second factor of a person whose two-factor sign-in is on: a 6-digit authenticator code, or (when
 * `allowRecovery`) one of the recovery codes. A wrong or replayed code answers INVALID_TWO_FACTOR_CODE and counts
 * towards the lock; a locked person gets TWO_FACTOR_LOCKED before any code is looked at.
 */
export async function verifySecondFactor(db: Db, secrets: SecretBox, subject: TwoFactorSubject, code: string, opts: { allowRecovery: boolean } = { allowRecovery: true }): Promise<SecondFactorUsed> {
  const row = await db.twoFactorCredential.findUnique({ where: { subjectId: subjectIdOf(subject) } });
  if (!row?.enabledAt) throw new AppError('CONFLICT', 'Two-factor sign-in is not on');
  assertNotLocked(row);
  const given = code.trim().replace(/\s/g, '');
  if (await acceptTotp(db, secrets, row, given)) return 'totp';
  if (opts.allowRecovery && (await acceptRecoveryCode(db, row, given))) return 'recovery_code';
  return recordFailure(db, row);
}

/** Confirms an enrolment with a first code; turns two-factor on and answers the 10 recovery codes (shown once). */
export async function confirmEnrolment(db: Db, secrets: SecretBox, subject: TwoFactorSubject, code: string): Promise<string[]> {
  const row = await db.twoFactorCredential.findUnique({ where: { subjectId: subjectIdOf(subject) } });
  if (!row) throw new AppError('CONFLICT', 'Start the enrolment first: no authenticator is waiting for a code');
  if (row.enabledAt) throw new AppError('CONFLICT', 'Two-factor sign-in is already on');
  assertNotLocked(row);
  if (!(await acceptTotp(db, secrets, row, code.trim()))) return recordFailure(db, row);
  const { codes, hashes } = newRecoveryCodes();
  await db.twoFactorCredential.update({ where: { id: row.id }, data: { enabledAt: new Date(), recoveryCodeHashes: hashes } });
  return codes;
}

/** New recovery codes (the old ones stop working), after a current authenticator code. */
export async function regenerateRecoveryCodes(db: Db, secrets: SecretBox, subject: TwoFactorSubject, code: string): Promise<string[]> {
  await verifySecondFactor(db, secrets, subject, code, { allowRecovery: false });
  const { codes, hashes } = newRecoveryCodes();
  await db.twoFactorCredential.update({ where: { subjectId: subjectIdOf(subject) }, data: { recoveryCodeHashes: hashes } });
  return codes;
}

/** Turns two-factor off after a code (authenticator or recovery): the secret and the codes are deleted. */
export async function disableTwoFactor(db: Db, secrets: SecretBox, subject: TwoFactorSubject, code: string): Promise<void> {
  await verifySecondFactor(db, secrets, subject, code);
  await db.twoFactorCredential.delete({ where: { subjectId: subjectIdOf(subject) } });
}
