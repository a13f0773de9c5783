// One merchant's data, with the merchant built in: `merchantScope(db, request.merchant.merchantId)` is what a merchant
// route reads and writes through, so no query of a merchant route can forget `where: { merchantId }` or take the id
// from anywhere but the caller's token (ARCHITECTURE.md: "every merchant route is scoped to the caller's merchant by
// construction"). Each table that belongs to a merchant is here with the Prisma operations the routes use; the scope
// puts the merchant id into every `where` (over any id a caller wrote there) and into every row it creates, and the
// types leave `merchantId` out of both, so a route does not write it at all. The merchant's own row is `merchant`,
// always the caller's.
//
// The operations return Prisma's own promises, unchanged: a batch `scope.batch([...])` is one database transaction as
// `db.$transaction([...])` is; `scope.transaction(fn)` gives `fn` the same scope over an interactive transaction.
// Queries that are legitimately across merchants (is this shop or hostname held by another merchant?) stay on `db`.
import type { Operation as Op } from '@prisma/client/runtime/client';
import type { Db, Prisma } from '../../prisma/client.js';

type Client = Db | Prisma.TransactionClient;

/** Prisma's arguments of operation F on delegate D, without `merchantId` in `where` (the scope supplies it). */
type ScopedArgs<D, F extends Op> = Prisma.Args<D, F> extends infer A
  ? A extends { where?: infer W } ? Omit<A, 'where'> & { where?: Omit<NonNullable<W>, 'merchantId'> } : A
  : never;
/** A unique `where` (update, delete): another unique field of the row, or nothing where the merchant has one such row. */
type ScopedUniqueArgs<D, F extends Op> = Omit<Prisma.Args<D, F>, 'where'> & { where?: Omit<Prisma.Args<D, F>['where'], 'merchantId'> };
/** A row as the routes give it: the unchecked form (scalar ids) without `merchantId`. */
type ScopedData<D> = Omit<Extract<Prisma.Args<D, 'create'>['data'], { merchantId: string }>, 'merchantId'>;
type ScopedCreateArgs<D> = Omit<Prisma.Args<D, 'create'>, 'data'> & { data: ScopedData<D> };
type ScopedCreateManyArgs<D> = Omit<Prisma.Args<D, 'createMany'>, 'data'> & { data: ScopedData<D>[] };

type Promised<D, A, F extends Op> = Prisma.PrismaPromise<Prisma.Result<D, A, F>>;

/** A merchant's table: Prisma's operations, each held to the merchant. */
export interface ScopedTable<D> {
  findMany<A extends ScopedArgs<D, 'findMany'>>(args?: Prisma.Exact<A, ScopedArgs<D, 'findMany'>>): Promised<D, A, 'findMany'>;
  findFirst<A extends ScopedArgs<D, 'findFirst'>>(args?: Prisma.Exact<A, ScopedArgs<D, 'findFirst'>>): Promised<D, A, 'findFirst'>;
  findFirstOrThrow<A extends ScopedArgs<D, 'findFirstOrThrow'>>(args?: Prisma.Exact<A, ScopedArgs<D, 'findFirstOrThrow'>>): Promised<D, A, 'findFirstOrThrow'>;
  count<A extends ScopedArgs<D, 'count'>>(args?: Prisma.Exact<A, ScopedArgs<D, 'count'>>): Promised<D, A, 'count'>;
  create<A extends ScopedCreateArgs<D>>(args: Prisma.Exact<A, ScopedCreateArgs<D>>): Promised<D, A, 'create'>;
  createMany(args: ScopedCreateManyArgs<D>): Prisma.PrismaPromise<Prisma.BatchPayload>;
  update<A extends ScopedUniqueArgs<D, 'update'>>(args: Prisma.Exact<A, ScopedUniqueArgs<D, 'update'>>): Promised<D, A, 'update'>;
  updateMany<A extends ScopedArgs<D, 'updateMany'>>(args: Prisma.Exact<A, ScopedArgs<D, 'updateMany'>>): Prisma.PrismaPromise<Prisma.BatchPayload>;
  delete<A extends ScopedUniqueArgs<D, 'delete'>>(args: Prisma.Exact<A, ScopedUniqueArgs<D, 'delete'>>): Promised<D, A, 'delete'>;
  deleteMany<A extends ScopedArgs<D, 'deleteMany'>>(args?: Prisma.Exact<A, ScopedArgs<D, 'deleteMany'>>): Prisma.PrismaPromise<Prisma.BatchPayload>;
}

type AnyArgs = { where?: object; data?: object | object[] } | undefined;
type Untyped<K extends string> = Record<K, (args: AnyArgs) => unknown>;

/** The delegate's operations with `scope` (`{ merchantId }`) put into every `where` and every created row. */
function scopedTable<D>(delegate: D, scope: object): ScopedTable<D> {
  const d = delegate as unknown as Untyped<keyof ScopedTable<D>>;
  // The scope is written last: a `merchantId` that reached `where` anyway cannot widen or move it.
  const where = (args: AnyArgs) => ({ ...args, where: { ...args?.where, ...scope } });
  const row = (data: object) => ({ ...data, ...scope });
  const table: Untyped<keyof ScopedTable<D>> = {
    findMany: (args) => d.findMany(where(args)),
    findFirst: (args) => d.findFirst(where(args)),
    findFirstOrThrow: (args) => d.findFirstOrThrow(where(args)),
    count: (args) => d.count(where(args)),
    create: (args) => d.create({ ...args, data: row(args!.data as object) }),
    createMany: (args) => d.createMany({ ...args, data: (args!.data as object[]).map(row) }),
    update: (args) => d.update(where(args)),
    updateMany: (args) => d.updateMany(where(args)),
    delete: (args) => d.delete(where(args)),
    deleteMany: (args) => d.deleteMany(where(args)),
  };
  return table as unknown as ScopedTable<D>;
}

/** Reads of a table that belongs to the merchant through its checkout session (`session: { merchantId }`). */
type SessionArgs<D, F extends Op> = Omit<Prisma.Args<D, F>, 'where'> & { where?: Omit<NonNullable<Prisma.Args<D, F>['where']>, 'session'> };
export interface SessionScopedTable<D> {
  findMany<A extends SessionArgs<D, 'findMany'>>(args?: Prisma.Exact<A, SessionArgs<D, 'findMany'>>): Promised<D, A, 'findMany'>;
  findFirst<A extends SessionArgs<D, 'findFirst'>>(args?: Prisma.Exact<A, SessionArgs<D, 'findFirst'>>): Promised<D, A, 'findFirst'>;
  count<A extends SessionArgs<D, 'count'>>(args?: Prisma.Exact<A, SessionArgs<D, 'count'>>): Promised<D, A, 'count'>;
}

type MerchantDelegate = Db['merchant'];
type OwnRowArgs<F extends Op> = Omit<Prisma.Args<MerchantDelegate, F>, 'where'>;

/** The merchant's own row: always the caller's (`where: { id: merchantId }`). */
export interface OwnRow {
  get<A extends OwnRowArgs<'findUniqueOrThrow'>>(args?: Prisma.Exact<A, OwnRowArgs<'findUniqueOrThrow'>>): Promised<MerchantDelegate, A, 'findUniqueOrThrow'>;
  update<A extends OwnRowArgs<'update'>>(args: Prisma.Exact<A, OwnRowArgs<'update'>>): Promised<MerchantDelegate, A, 'update'>;
  /** A conditional update (`where` narrows the row further): how many rows it changed, 0 or 1. */
  updateIf<A extends ScopedOwnRowWhere>(args: Prisma.Exact<A, ScopedOwnRowWhere>): Prisma.PrismaPromise<Prisma.BatchPayload>;
}
type ScopedOwnRowWhere = Omit<Prisma.Args<MerchantDelegate, 'updateMany'>, 'where'> & { where: Omit<Prisma.MerchantWhereInput, 'id'> };

function ownRow(merchant: MerchantDelegate, merchantId: string): OwnRow {
  const m = merchant as unknown as Untyped<'findUniqueOrThrow' | 'update' | 'updateMany'>;
  const row: Untyped<keyof OwnRow> = {
    get: (args) => m.findUniqueOrThrow({ ...args, where: { id: merchantId } }),
    update: (args) => m.update({ ...args, where: { id: merchantId } }),
    updateIf: (args) => m.updateMany({ ...args, where: { ...args?.where, id: merchantId } }),
  };
  return row as unknown as OwnRow;
}

function tables(client: Client, merchantId: string) {
  const t = <D>(delegate: D) => scopedTable(delegate, { merchantId });
  const bySession = <D>(delegate: D) => scopedTable(delegate, { session: { merchantId } }) as unknown as SessionScopedTable<D>;
  return {
    merchantId,
    /**
     * A raw read of this merchant's rows: the SQL must bind `merchantId` (`WHERE merchant_id = ${data.merchantId}::uuid`),
     * else it is refused before it runs, so a raw query cannot forget the merchant either.
     */
    queryRaw: <T>(sql: Prisma.Sql): Prisma.PrismaPromise<T> => {
      if (!sql.values.includes(merchantId)) throw new Error('A merchant-scoped raw query must bind the merchant id (merchant_id = ${merchantId})');
      return client.$queryRaw<T>(sql);
    },
    merchant: ownRow(client.merchant, merchantId),
    apiKeys: t(client.apiKey),
    checkoutSessions: t(client.checkoutSession),
    customDomain: t(client.customDomain),
    discountCodes: t(client.discountCode),
    emailMessages: t(client.emailMessage),
    memberInvitations: t(client.memberInvitation),
    members: t(client.merchantMember),
    merchantEvents: t(client.merchantEvent),
    oauthStates: t(client.oAuthState),
    orderBumps: t(client.orderBump),
    platformSubscription: t(client.platformSubscription),
    processorConnection: t(client.processorConnection),
    processorConnectionAttempts: t(client.processorConnectionAttempt),
    processorWebhookDeliveries: t(client.processorWebhookDelivery),
    refunds: t(client.refund),
    sessionEvents: bySession(client.sessionEvent),
    shippingRates: t(client.shippingRate),
    storefrontAConnection: t(client.storefrontAConnection),
    storefrontBConnection: t(client.storefrontBConnection),
    trackingPixels: t(client.trackingPixel),
    twoFactorCredentials: t(client.twoFactorCredential),
    upsellPurchases: t(client.upsellPurchase),
    upsells: t(client.upsell),
    webhookDeliveries: t(client.webhookDelivery),
    webhookEndpoints: t(client.webhookEndpoint),
  };
}

export type MerchantTables = ReturnType<typeof tables>;

export interface MerchantScope extends MerchantTables {
  /** Several operations of this scope in one database transaction (Prisma's batch form). */
  batch<P extends Prisma.PrismaPromise<unknown>[]>(operations: [...P]): Promise<{ [K in keyof P]: Awaited<P[K]> }>;
  /**
   * `fn` with this scope over an interactive transaction. `tx` is the same transaction unscoped, for the few queries
   * that must look across merchants (does another merchant hold this shop?): say why where it is used.
   */
  transaction<T>(fn: (scope: MerchantTables, tx: Prisma.TransactionClient) => Promise<T>, options?: { isolationLevel?: Prisma.TransactionIsolationLevel }): Promise<T>;
}

/** The data of the merchant `merchantId` (the authenticated caller's, from `request.merchant`). */
export function merchantScope(db: Db, merchantId: string): MerchantScope {
  return {
    ...tables(db, merchantId),
    batch: (operations) => db.$transaction(operations) as never,
    transaction: (fn, options) => db.$transaction((tx) => fn(tables(tx, merchantId), tx), options),
  };
}
