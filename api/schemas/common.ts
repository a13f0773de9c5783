import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../domain/errors.js';

const codes = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** Every failure answers this shape (with `details` on validation errors). */
export const errorResponse = z
  .object({
    error: z.string().describe('Human-readable message'),
    code: z.enum(codes).describe('Stable machine-readable code (domain/errors.ts)'),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'Error' });

export type ErrorResponse = z.infer<typeof errorResponse>;

/**
 * A credential a platform issued (API key, consumer key or secret, app client id or secret): printable ASCII
 * without spaces, as every platform issues them. Surrounding whitespace from a paste is dropped; anything else
 * (an emoji, a zero-width space, U+202E…) is a paste gone wrong, refused here rather than sent to the platform.
 */
export const credential = (what: string, max: number) =>
  z
    .string()
    .trim()
    .min(1, `the ${what} is required`)
    .max(max)
    .regex(/^[\x21-\x7e]+$/, `the ${what} must be printable ASCII without spaces: check for a stray character from the paste`);
