{{/* The operator's rules in each namespace it reconciles; the same as OPERATOR_RULES in main/kube/operator/operatorManifests.ts. */}}
{{- define "tooldeck-operator.rules" -}}
rules:
  - apiGroups:
      - langop.io
    resources:
      - languagetools
      - languageagents
    verbs:
      - get
      - list
      - watch
      - patch
      - update
  - apiGroups:
      - langop.io
    resources:
      - languagetools/status
      - languageagents/status
    verbs:
      - get
      - patch
      - update
  - apiGroups:
      - langop.io
    resources:
      - languagetools/finalizers
    verbs:
      - update
  - apiGroups:
      - apps
    resources:
      - deployments
    verbs:
      - get
      - list
      - watch
      - create
      - patch
      - update
      - delete
  - apiGroups:
      - ""
    resources:
      - services
    verbs:
      - get
      - list
      - watch
      - create
      - patch
      - update
      - delete
  - apiGroups:
      - ""
    resources:
      - configmaps
    verbs:
      - get
      - list
      - watch
      - create
      - patch
      - update
  - apiGroups:
      - ""
    resources:
      - services/proxy
      - pods/proxy
    verbs:
      - get
      - create
  - apiGroups:
      - ""
    resources:
      - pods
    verbs:
      - get
      - list
  - apiGroups:
      - ""
    resources:
      - secrets
    verbs:
      - get
      - create
      - delete
  - apiGroups:
      - events.k8s.io
    resources:
      - events
    verbs:
      - create
      - patch
{{- end }}

{{/* The namespaces granted by Roles (and passed as --watch-namespaces): watchNamespaces, or the release namespace. Empty when clusterWide. */}}
{{- define "tooldeck-operator.watchNamespaces" -}}
{{- if not .Values.clusterWide -}}
{{- if .Values.watchNamespaces -}}
{{- join "," (uniq .Values.watchNamespaces) -}}
{{- else -}}
{{- .Release.Namespace -}}
{{- end -}}
{{- end -}}
{{- end }}

{{/* The namespaces whose LanguageAgents may use the gateway: the watched namespaces, or the release namespace when clusterWide. */}}
{{- define "tooldeck-gateway.agentNamespaces" -}}
{{- if .Values.clusterWide -}}
{{- .Release.Namespace -}}
{{- else -}}
{{- include "tooldeck-operator.watchNamespaces" . -}}
{{- end -}}
{{- end }}
