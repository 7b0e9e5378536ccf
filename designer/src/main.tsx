import { render } from 'preact';
import { loadPlan, readBoot } from './api.js';
import { App } from './ui/App.js';
import './styles.css';

// The seat-map designer of the dashboard (docs/venues.md), on /admin/venues/{id}/designer: the page
// holds an element with the venue and the CSRF token; the app loads the newest layout into it.

async function start() {
  const root = document.getElementById('designer-root');
  if (!root) return;
  const boot = readBoot(root);
  try {
    const loaded = await loadPlan(boot);
    root.textContent = '';
    render(<App boot={boot} initial={loaded.plan} version={loaded.version} />, root);
  } catch (err) {
    root.textContent = `The designer could not load the seat map: ${(err as Error).message}`;
    root.setAttribute('role', 'alert');
  }
}

void start();
