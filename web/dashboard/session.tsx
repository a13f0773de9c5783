// Who is logged in. The API's cookie is the session; this only mirrors GET /api/merchant/me so every page
// can read the merchant and refresh it after a change.
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import { api, setUnauthorizedHandler } from './api.js';
import type { Merchant } from './types.js';

export interface Session {
  /** undefined while loading, null when logged out. */
  me: Merchant | null | undefined;
  setMe: (m: Merchant | null) => void;
  refresh: () => Promise<Merchant | null>;
  logout: () => Promise<void>;
}

const SessionContext = createContext<Session>({
  me: undefined,
  setMe: () => undefined,
  refresh: async () => null,
  logout: async () => undefined,
});

export function SessionProvider(props: { children: ComponentChildren }) {
  const [me, setMe] = useState<Merchant | null | undefined>(undefined);
  const refresh = useCallback(async () => {
    try {
      const m = await api.get('/api/merchant/me', { quiet401: true });
      setMe(m);
      return m;
    } catch {
      setMe(null);
      return null;
    }
  }, []);
  useEffect(() => {
    setUnauthorizedHandler(() => setMe(null));
    void refresh();
  }, [refresh]);
  // Answers other than GET /me (register, a settings PATCH…) carry the merchant without `viewer` (who is signed in,
  // with which role): the same session keeps the viewer it had, and a first one is asked of /me.
  const setMerchant = useCallback((m: Merchant | null) => setMe((prev) => (m && !m.viewer && prev?.viewer ? { ...m, viewer: prev.viewer } : m)), []);
  useEffect(() => {
    if (me && !me.viewer) void refresh();
  }, [me, refresh]);
  const logout = useCallback(async () => {
    try {
      await api.post('/api/auth/logout');
    } finally {
      setMe(null);
    }
  }, []);
  return <SessionContext.Provider value={{ me, setMe: setMerchant, refresh, logout }}>{props.children}</SessionContext.Provider>;
}

export const useSession = () => useContext(SessionContext);

/** A list the API answers page by page (`{ items, nextCursor }`): the items so far, and `more` for the next page. */
export interface CursorPages<T> {
  items: T[];
  /** The next page's cursor; null after the last page. */
  cursor: string | null;
  loading: boolean;
  error: Error | null;
  more: () => void;
}

/** Loads a cursor-paged list: its first page on mount and whenever `key` changes (the items so far dropped), then `more`. */
export function useCursorPages<T>(load: (cursor: string | null) => Promise<{ items: T[]; nextCursor: string | null }>, key: string): CursorPages<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [state, setState] = useState<{ loading: boolean; error: Error | null }>({ loading: true, error: null });
  const page = async (after: string | null) => {
    setState({ loading: true, error: null });
    try {
      const next = await load(after);
      setItems((prev) => (after ? [...prev, ...next.items] : next.items));
      setCursor(next.nextCursor);
      setState({ loading: false, error: null });
    } catch (err) {
      setState({ loading: false, error: err as Error });
    }
  };
  useEffect(() => {
    setItems([]);
    void page(null);
  }, [key]);
  return { items, cursor, ...state, more: () => void page(cursor) };
}

/** A small loader hook: runs `load` on mount and when `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): { data: T | undefined; error: Error | null; loading: boolean; reload: () => Promise<void>; setData: (d: T) => void } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  const reload = useCallback(async () => {
    setLoading(true);
    try {
      setData(await load());
      setError(null);
    } catch (err) {
      setError(err as Error);
    } finally {
      setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload, setData };
}
