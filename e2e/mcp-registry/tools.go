//go:build tools

// Package tools pins the official MCP registry server the registry tests run against: `go build
// github.com/modelcontextprotocol/registry/cmd/registry` in this module builds it from the Go
// module proxy, as the kube test bed and helm are built.
package tools

import _ "github.com/modelcontextprotocol/registry/cmd/registry"
