// A session's timeline event and the funnel milestones it marks (domain/stats.ts: the step and the earlier
// ones), written in one statement: statistics count the milestone columns, so they cannot disagree with
// the timeline, and a milestone keeps the first time it was reached (COALESCE), whatever repeats later.
import { randomUUID } from 'node:crypto';
import { Prisma, type Db } from '../../prisma/client.js';
import { MILESTONE_COLUMNS, milestonesOfEvent, type Milestone } from '../../domain/stats.js';

/** The UPDATE that sets the milestones still unset on the session (also inside a transaction); 0 rows for an unknown token. */
export function markMilestones(db: Db | Prisma.TransactionClient, token: string, milestones: readonly Milestone[], at: Date) {
  return db.$executeRaw`UPDATE checkout_sessions SET ${Prisma.join(milestoneSets(milestones, at))} WHERE token = ${token}`;
}

/** `"column" = COALESCE("column", at)` for each milestone: a milestone keeps the first time it was reached. */
function milestoneSets(milestones: readonly Milestone[], at: Date): Prisma.Sql[] {
  return milestones.map((m) => {
    const column = Prisma.raw(`"${MILESTONE_COLUMNS[m]}"`);
    return Prisma.sql`${column} = COALESCE(${column}, ${at})`;
  });
}

/**
 * Appends an event to the session's timeline, with the milestones it marks: one statement either way (a
 * data-modifying WITH is atomic), where a transaction of the INSERT and the UPDATE took four round trips.
 */
export async function recordSessionEvent(db: Db, token: string, type: string, data: Prisma.InputJsonValue = {}, at = new Date()): Promise<void> {
  const milestones = milestonesOfEvent(type, data);
  if (milestones.length === 0) {
    await db.sessionEvent.createMany({ data: [{ token, type, data, at }] });
    return;
  }
  const sets = milestoneSets(milestones, at);
  await db.$executeRaw`WITH event AS (INSERT INTO session_events (id, token, type, data, at) VALUES (${randomUUID()}::uuid, ${token}, ${type}, ${JSON.stringify(data)}::jsonb, ${at}) RETURNING token)
    UPDATE checkout_sessions SET ${Prisma.join(sets)} WHERE token = (SELECT token FROM event)`;
}
