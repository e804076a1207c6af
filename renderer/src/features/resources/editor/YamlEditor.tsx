import { Center, Loader } from '@mantine/core';
import { createContext, lazy, Suspense, useContext, type ComponentType } from 'react';
import { ErrorBoundary } from '../../../components/ErrorBoundary';
import { PlainYamlDiff, PlainYamlEditor } from './PlainYamlEditor';
import type { YamlDiffProps, YamlEditorProps } from './YamlEditorProps';

const MonacoYamlEditor = lazy(() => import('./MonacoYamlEditor'));
const MonacoYamlDiff = lazy(() => import('./MonacoYamlDiff'));

export interface YamlEditorComponents {
  Editor: ComponentType<YamlEditorProps>;
  Diff: ComponentType<YamlDiffProps>;
}

/** The plain textarea editors, for hosts without a layout engine such as jsdom. */
export const plainYamlEditors: YamlEditorComponents = { Editor: PlainYamlEditor, Diff: PlainYamlDiff };

/** Which editors the Resources view renders. Unset, they are Monaco's (loaded on first use). */
export const YamlEditorImplementation = createContext<YamlEditorComponents | null>(null);

function loading(height: string) {
  return (
    <Center h={height}>
      <Loader size="sm" aria-label="Loading editor" />
    </Center>
  );
}

/** Monaco on a workspace file, with schema completion, hover docs and markers; a textarea when Monaco cannot load. */
export function YamlEditor(props: YamlEditorProps) {
  const Implementation = useContext(YamlEditorImplementation);
  if (Implementation) return <Implementation.Editor {...props} />;
  return (
    <ErrorBoundary fallback={() => <PlainYamlEditor {...props} />}>
      <Suspense fallback={loading(props.height)}>
        <MonacoYamlEditor {...props} />
      </Suspense>
    </ErrorBoundary>
  );
}

/** The draft against the saved file. */
export function YamlDiff(props: YamlDiffProps) {
  const Implementation = useContext(YamlEditorImplementation);
  if (Implementation) return <Implementation.Diff {...props} />;
  return (
    <ErrorBoundary fallback={() => <PlainYamlDiff {...props} />}>
      <Suspense fallback={loading(props.height)}>
        <MonacoYamlDiff {...props} />
      </Suspense>
    </ErrorBoundary>
  );
}
