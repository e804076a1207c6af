import { Center, Loader } from '@mantine/core';
import { createContext, lazy, Suspense, useContext, type ComponentType } from 'react';
import { ErrorBoundary } from '../components/ErrorBoundary';
import type { JsonEditorProps } from './JsonEditorProps';
import { PlainJsonEditor } from './PlainJsonEditor';

export type { JsonEditorProps } from './JsonEditorProps';

const MonacoJsonEditor = lazy(() => import('./MonacoJsonEditor'));

/**
 * Which editor `JsonEditor` renders. Unset, it is Monaco (loaded on first use); hosts without a
 * layout engine, such as jsdom, put `PlainJsonEditor` here.
 */
export const JsonEditorImplementation = createContext<ComponentType<JsonEditorProps> | null>(null);

/** A JSON editor: Monaco with inline schema markers, or a plain textarea when Monaco cannot load. */
export function JsonEditor(props: JsonEditorProps) {
  const Implementation = useContext(JsonEditorImplementation);
  if (Implementation) return <Implementation {...props} />;
  return (
    <ErrorBoundary fallback={() => <PlainJsonEditor {...props} />}>
      <Suspense
        fallback={
          <Center h={props.minHeight ?? 160}>
            <Loader size="sm" aria-label="Loading editor" />
          </Center>
        }
      >
        <MonacoJsonEditor {...props} />
      </Suspense>
    </ErrorBoundary>
  );
}
