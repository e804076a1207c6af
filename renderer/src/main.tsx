import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import '@mantine/dates/styles.css';
import '@mantine/spotlight/styles.css';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { getBridge } from './rpc/bridge';
import { establishSession, type SessionState } from './rpc/session';
import { SessionProblem } from './shell/SessionProblem';
import { ThemeProvider } from './shell/ThemeProvider';

const root = createRoot(document.getElementById('root')!);
const session: SessionState = getBridge() ? 'ok' : await establishSession().catch(() => 'rejected' as const);

root.render(<ThemeProvider>{session === 'ok' ? <App /> : <SessionProblem state={session} />}</ThemeProvider>);
