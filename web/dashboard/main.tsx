// The merchant dashboard: Preact (a few KB, React's component model) with a history router; see app.tsx.
import { render } from 'preact';
import { App } from './app.js';
import { SessionProvider } from './session.js';
import './styles.css';

render(
  <SessionProvider>
    <App />
  </SessionProvider>,
  document.getElementById('app')!,
);
