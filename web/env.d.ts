// Vite's client types (import.meta.env, asset imports) for the browser code.
/// <reference types="vite/client" />
