// A session's timeline event and the funnel milestones it marks (domain/stats.ts: the step and the earlier
// ones), written in one transaction: statistics count the milestone columns, so they cannot disagree with
// the timeline, and a milestone keeps the first time it was reached (COALESCE), whatever repeats later.
import { Prisma, type Db } from '../../prisma/client.js';
import { MILESTONE_COLUMNS, milestonesOfEvent, type Milestone } from '../../domain/stats.js';

/** The UPDATE that sets the milestones still unset on the session (also inside a transaction); 0 rows for an unknown token. */
export function markMilestones(db: Db | Prisma.TransactionClient, token: string, milestones: readonly Milestone[], at: Date) {
  const sets = milestones.map((m) => {
    const column = Prisma.raw(`"${MILESTONE_COLUMNS[m]}"`);
    return Prisma.sql`${column} = COALESCE(${column}, ${at})`;
  });
  return db.$executeRaw`UPDATE checkout_sessions SET ${Prisma.join(sets)} WHERE token = ${token}`;
}

/** Appends an event to the session's timeline, with the milestones it marks. */
export async function recordSessionEvent(db: Db, token: string, type: string, data: Prisma.InputJsonValue = {}, at = new Date()): Promise<void> {
  const create = db.sessionEvent.create({ data: { token, type, data, at } });
  const milestones = milestonesOfEvent(type, data);
  if (milestones.length === 0) await create;
  else await db.$transaction([create, markMilestones(db, token, milestones, at)]);
}
