import { IconChartLine, IconCloudComputing, IconListCheck, IconFileCode, IconHistory, IconInfoCircle, IconRobot, IconServer2, IconServerBolt, IconTool, type Icon } from '@tabler/icons-react';
import type { ComponentType } from 'react';
import { AboutView } from '../features/about/AboutView';
import { AgentsView } from '../features/agents/AgentsView';
import { ClusterView } from '../features/cluster/ClusterView';
import { CollectionsView } from '../features/collections/CollectionsView';
import { GrpcView } from '../features/grpc/GrpcView';
import { HistoryView } from '../features/history/HistoryView';
import { MetricsView } from '../features/metrics/MetricsView';
import { ResourcesView } from '../features/resources/ResourcesView';
import { ServersView } from '../features/servers/ServersView';
import { ToolsView } from '../features/tools/ToolsView';

export interface Section {
  id: string;
  label: string;
  icon: Icon;
  component: ComponentType;
  /** Sections below the divider (settings, about). */
  footer?: boolean;
}

/** Only sections that work are listed; each feature adds itself here. */
export const sections: Section[] = [
  { id: 'servers', label: 'Servers', icon: IconServer2, component: ServersView },
  { id: 'agents', label: 'Agents', icon: IconRobot, component: AgentsView },
  { id: 'grpc', label: 'gRPC', icon: IconServerBolt, component: GrpcView },
  { id: 'tools', label: 'Tools', icon: IconTool, component: ToolsView },
  { id: 'resources', label: 'Resources', icon: IconFileCode, component: ResourcesView },
  { id: 'cluster', label: 'Cluster', icon: IconCloudComputing, component: ClusterView },
  { id: 'collections', label: 'Collections', icon: IconListCheck, component: CollectionsView },
  { id: 'history', label: 'History', icon: IconHistory, component: HistoryView },
  { id: 'metrics', label: 'Metrics', icon: IconChartLine, component: MetricsView },
  { id: 'about', label: 'About', icon: IconInfoCircle, component: AboutView, footer: true },
];

export const defaultSectionId = sections.find((s) => !s.footer)?.id ?? sections[0]!.id;
