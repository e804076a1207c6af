//go:build tools

// Package tools pins the Helm release the chart tests render with: `go build
// helm.sh/helm/v3/cmd/helm` in this module builds the real helm command from the
// Go module proxy (no binary download), as the kube test bed is built.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
