import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import '@mantine/dates/styles.css';
import '@mantine/spotlight/styles.css';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { getBridge } from './rpc/bridge';
import { establishSession, type Session } from './rpc/session';
import { SessionProblem } from './shell/SessionProblem';
import { ThemeProvider } from './shell/ThemeProvider';

const root = createRoot(document.getElementById('root')!);
const session: Session = getBridge() ? { state: 'ok' } : await establishSession().catch(() => ({ state: 'rejected' as const }));

root.render(<ThemeProvider>{session.state === 'ok' ? <App token={session.token} /> : <SessionProblem state={session.state} />}</ThemeProvider>);
