// The Vary header, added to rather than replaced: the CORS plugin may have set `Vary: Origin`, the static files say
// `accept-encoding`, the checkout's answers `Accept-Language`.
import type { FastifyReply } from 'fastify';

/** Adds `name` to the reply's Vary unless it is listed already (in any letter case). */
export function addVary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary');
  if (current === undefined) {
    reply.header('vary', name);
    return;
  }
  const listed = (Array.isArray(current) ? current.join(',') : String(current ?? '')).split(',').map((v) => v.trim()).filter(Boolean);
  if (listed.some((v) => v.toLowerCase() === name.toLowerCase())) return;
  reply.header('vary', [...listed, name].join(', '));
}
