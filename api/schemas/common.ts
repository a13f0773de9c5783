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
