import { IconArrowsExchange, IconArrowsRightLeft, IconChartLine, IconCompass, IconFlask, IconMessageChatbot, IconHandStop, IconPlugConnected, IconCloudComputing, IconListCheck, IconFileCode, IconHistory, IconInfoCircle, IconRobot, IconServer2, IconServerBolt, IconShieldLock, IconTool, type Icon } from '@tabler/icons-react';
import { lazy, type ComponentType } from 'react';
import { ServersView } from '../features/servers/ServersView';
import { ApprovalsBadge } from '../features/approvals/ApprovalsBadge';
import type { SectionId } from './sectionIds';

// The first view (Servers) is in the entry chunk; every other section is fetched when first
// opened, so the console is interactive before the code of charts, editors and forms arrives.
const DiscoverView = lazy(() => import('../features/discover/DiscoverView').then((m) => ({ default: m.DiscoverView })));
const AgentsView = lazy(() => import('../features/agents/AgentsView').then((m) => ({ default: m.AgentsView })));
const GrpcView = lazy(() => import('../features/grpc/GrpcView').then((m) => ({ default: m.GrpcView })));
const ToolsView = lazy(() => import('../features/tools/ToolsView').then((m) => ({ default: m.ToolsView })));
const ApprovalsView = lazy(() => import('../features/approvals/ApprovalsView').then((m) => ({ default: m.ApprovalsView })));
const ResourcesView = lazy(() => import('../features/resources/ResourcesView').then((m) => ({ default: m.ResourcesView })));
const ClusterView = lazy(() => import('../features/cluster/ClusterView').then((m) => ({ default: m.ClusterView })));
const CollectionsView = lazy(() => import('../features/collections/CollectionsView').then((m) => ({ default: m.CollectionsView })));
const GatewayView = lazy(() => import('../features/gateway/GatewayView').then((m) => ({ default: m.GatewayView })));
const AgentRightsView = lazy(() => import('../features/agentRights/AgentRightsView').then((m) => ({ default: m.AgentRightsView })));
const BusView = lazy(() => import('../features/bus/BusView').then((m) => ({ default: m.BusView })));
const MediationView = lazy(() => import('../features/mediation/MediationView').then((m) => ({ default: m.MediationView })));
const PlaygroundView = lazy(() => import('../features/playground/PlaygroundView').then((m) => ({ default: m.PlaygroundView })));
const EvalsView = lazy(() => import('../features/evals/EvalsView').then((m) => ({ default: m.EvalsView })));
const HistoryView = lazy(() => import('../features/history/HistoryView').then((m) => ({ default: m.HistoryView })));
const MetricsView = lazy(() => import('../features/metrics/MetricsView').then((m) => ({ default: m.MetricsView })));
const AboutView = lazy(() => import('../features/about/AboutView').then((m) => ({ default: m.AboutView })));

export interface Section {
  id: SectionId;
  label: string;
  icon: Icon;
  component: ComponentType;
  /** Sections below the divider (settings, about). */
  footer?: boolean;
  /** Drawn at the end of the navigation entry: a live count (in the entry chunk, so keep it small). */
  badge?: ComponentType;
}

/** Every id of sectionIds.ts, in its order (sections.test.ts checks): each feature adds itself there and here. */
export const sections: Section[] = [
  { id: 'servers', label: 'Servers', icon: IconServer2, component: ServersView },
  { id: 'tools', label: 'Tools', icon: IconTool, component: ToolsView },
  { id: 'playground', label: 'Playground', icon: IconMessageChatbot, component: PlaygroundView },
  { id: 'evals', label: 'Evals', icon: IconFlask, component: EvalsView },
  { id: 'collections', label: 'Collections', icon: IconListCheck, component: CollectionsView },
  { id: 'agents', label: 'A2A agents', icon: IconRobot, component: AgentsView },
  { id: 'grpc', label: 'gRPC', icon: IconServerBolt, component: GrpcView },
  { id: 'gateway', label: 'Gateway', icon: IconPlugConnected, component: GatewayView },
  { id: 'agentRights', label: 'Agent rights', icon: IconShieldLock, component: AgentRightsView },
  { id: 'mediation', label: 'Mediation', icon: IconArrowsRightLeft, component: MediationView },
  { id: 'approvals', label: 'Approvals', icon: IconHandStop, component: ApprovalsView, badge: ApprovalsBadge },
  { id: 'bus', label: 'Bus', icon: IconArrowsExchange, component: BusView },
  { id: 'cluster', label: 'Cluster', icon: IconCloudComputing, component: ClusterView },
  { id: 'history', label: 'History', icon: IconHistory, component: HistoryView },
  { id: 'metrics', label: 'Metrics', icon: IconChartLine, component: MetricsView },
  { id: 'resources', label: 'Resources', icon: IconFileCode, component: ResourcesView },
  { id: 'discover', label: 'Discover', icon: IconCompass, component: DiscoverView },
  { id: 'about', label: 'About', icon: IconInfoCircle, component: AboutView, footer: true },
];
