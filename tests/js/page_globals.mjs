// What the client's modules find in a browser, for node --test: localStorage, navigator, the
// document's root element, and fetch answering with `schema` for GET /api/settings/schema.
// Import this first, then the modules under test with a dynamic import().

export function fakePage({ lang = "en", schema = null } = {}) {
  const store = new Map([["laizi.lang", lang]]);
  globalThis.localStorage = {
    getItem: (k) => (store.has(k) ? store.get(k) : null),
    setItem: (k, v) => store.set(k, String(v)),
  };
  Object.defineProperty(globalThis, "navigator", { value: { language: lang }, configurable: true });
  globalThis.document = { documentElement: {} };
  globalThis.fetch = async (url) => ({
    ok: schema != null && url === "/api/settings/schema",
    json: async () => schema,
  });
}
