// Command kube-testbed runs a real Kubernetes control plane (embedded etcd +
// in-process kube-apiserver) without Docker, for end-to-end tests.
//
// stdout carries exactly two lines once the API server is ready:
//
//	version {"major":"1",...}
//	ready
//
// Everything else (apiserver / etcd logs, diagnostics) goes to stderr or --log-file.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"go.uber.org/zap/zapcore"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "kube-testbed: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	dieWithParent()

	fs := flag.NewFlagSet("kube-testbed", flag.ContinueOnError)
	kubeconfigOut := fs.String("kubeconfig-out", "", "write an admin kubeconfig to this file (required)")
	port := fs.Int("port", 0, "secure port for kube-apiserver on 127.0.0.1 (0 = pick a free port)")
	dataDir := fs.String("data-dir", "", "directory for etcd data and PKI (default: a temp dir removed on exit)")
	logFile := fs.String("log-file", "", "write all apiserver (klog) logs to this file; default: only errors to stderr")
	verbosity := fs.Int("v", 0, "klog verbosity for the apiserver")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: kube-testbed --kubeconfig-out FILE [--port N] [--data-dir DIR] [--log-file FILE] [--v N] [-- extra kube-apiserver flags]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	extraArgs := fs.Args() // anything after "--" is passed to kube-apiserver
	if *kubeconfigOut == "" {
		fs.Usage()
		return errors.New("--kubeconfig-out is required")
	}
	kubeconfigPath, err := filepath.Abs(*kubeconfigOut)
	if err != nil {
		return err
	}

	configureKlog(*logFile, *verbosity)

	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		return fmt.Errorf("listening on 127.0.0.1:%d: %w", *port, err)
	}
	defer listener.Close() // no-op once the apiserver owns it
	securePort := listener.Addr().(*net.TCPAddr).Port
	server := fmt.Sprintf("https://127.0.0.1:%d", securePort)

	// Working directory.
	removeDir := ""
	base := *dataDir
	if base == "" {
		base, err = os.MkdirTemp("", "kube-testbed-")
		if err != nil {
			return err
		}
		removeDir = base
	} else if err := os.MkdirAll(base, 0o700); err != nil {
		return err
	}
	defer func() {
		if removeDir != "" {
			_ = os.RemoveAll(removeDir)
		}
	}()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	p, err := generatePKI(filepath.Join(base, "pki"))
	if err != nil {
		return fmt.Errorf("generating certificates: %w", err)
	}

	etcd, etcdURL, err := startEtcd(filepath.Join(base, "etcd"))
	if err != nil {
		return err
	}
	etcdClosed := false
	closeEtcd := func() {
		if !etcdClosed {
			etcdClosed = true
			etcdLogLevel.SetLevel(zapcore.FatalLevel)
			etcd.Close()
		}
	}
	defer closeEtcd()

	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", securePort),
		"--tls-cert-file=" + p.ServingCertFile,
		"--tls-private-key-file=" + p.ServingKeyFile,
		"--client-ca-file=" + p.CACertFile,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.SAKeyFile,
		"--service-account-signing-key-file=" + p.SAKeyFile,
		"--token-auth-file=" + p.TokenFile,
		"--authorization-mode=RBAC",
		// The ServiceAccount admission plugin rejects Pods until the (absent)
		// service-account controller has created the "default" ServiceAccount.
		"--disable-admission-plugins=ServiceAccount",
		"--allow-privileged=true",
		// 127.0.0.1 cannot be stored in Endpoints; don't try to publish the
		// apiserver's own address in default/kubernetes.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
		"--cert-dir=" + filepath.Join(base, "pki"),
	}
	args = append(args, extraArgs...)

	s := options.NewServerRunOptions()
	afs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		afs.AddFlagSet(f)
	}
	if err := afs.Parse(args); err != nil {
		return fmt.Errorf("kube-apiserver flags: %w", err)
	}
	s.SecureServing.Listener = listener
	s.SecureServing.BindPort = securePort
	if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
		return err
	}
	// kube-apiserver loopback clients should not log self-issued warnings.
	rest.SetDefaultWarningHandler(rest.NoWarnings{})

	apiCtx, cancelAPI := context.WithCancel(context.Background())
	defer cancelAPI()
	completed, err := s.Complete(apiCtx)
	if err != nil {
		return fmt.Errorf("completing apiserver options: %w", err)
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return fmt.Errorf("invalid apiserver options: %w", utilerrors.NewAggregate(errs))
	}

	apiDone := make(chan error, 1)
	go func() { apiDone <- app.Run(apiCtx, completed) }()

	client, err := httpsClient(p.CACertPEM, p.Token)
	if err != nil {
		return err
	}

	shutdown := func(reason error) error {
		cancelAPI()
		select {
		case err := <-apiDone:
			if err != nil && reason == nil {
				reason = fmt.Errorf("kube-apiserver: %w", err)
			}
		case <-time.After(60 * time.Second):
			fmt.Fprintln(os.Stderr, "kube-testbed: kube-apiserver did not stop within 60s")
		}
		closeEtcd()
		return reason
	}

	// Wait for /readyz.
	start := time.Now()
	for {
		if ok, _ := getOK(client, server+"/readyz"); ok {
			break
		}
		select {
		case <-ctx.Done():
			return shutdown(nil)
		case err := <-apiDone:
			closeEtcd()
			if err == nil {
				err = errors.New("exited before becoming ready")
			}
			return fmt.Errorf("kube-apiserver: %w", err)
		case err := <-etcd.Err():
			return shutdown(fmt.Errorf("etcd: %w", err))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Since(start) > 3*time.Minute {
			b, _ := get(client, server+"/readyz?verbose")
			return shutdown(fmt.Errorf("kube-apiserver not ready after 3m:\n%s", b))
		}
	}

	if err := writeKubeconfig(kubeconfigPath, server, p.CACertPEM, p.Token); err != nil {
		return shutdown(fmt.Errorf("writing kubeconfig: %w", err))
	}
	ver, err := get(client, server+"/version")
	if err != nil {
		return shutdown(fmt.Errorf("GET /version: %w", err))
	}
	var compact strings.Builder
	var v any
	if err := json.Unmarshal(ver, &v); err != nil {
		return shutdown(fmt.Errorf("parsing /version: %w", err))
	}
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	fmt.Fprintf(os.Stderr, "kube-testbed: ready in %s at %s (kubeconfig %s, etcd %s, dir %s)\n",
		time.Since(start).Round(time.Millisecond), server, kubeconfigPath, etcdURL, base)
	fmt.Fprintf(os.Stdout, "version %s\n", strings.TrimSpace(compact.String()))
	fmt.Fprintln(os.Stdout, "ready")

	select {
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "kube-testbed: signal received, shutting down")
		err := shutdown(nil)
		if err == nil {
			fmt.Fprintln(os.Stderr, "kube-testbed: stopped")
		}
		return err
	case err := <-apiDone:
		closeEtcd()
		if err == nil {
			err = errors.New("exited unexpectedly")
		}
		return fmt.Errorf("kube-apiserver: %w", err)
	case err := <-etcd.Err():
		return shutdown(fmt.Errorf("etcd: %w", err))
	}
}

// configureKlog keeps the apiserver quiet: by default only errors reach stderr;
// with logFile every message at the requested verbosity goes to that file.
func configureKlog(logFile string, v int) {
	kfs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(kfs)
	set := func(k, val string) { _ = kfs.Set(k, val) }
	set("v", fmt.Sprint(v))
	set("logtostderr", "false")
	set("alsologtostderr", "false")
	set("stderrthreshold", "ERROR")
	set("skip_log_headers", "true")
	if logFile != "" {
		set("log_file", logFile)
		set("one_output", "true")
	} else {
		klog.SetOutput(io.Discard)
	}
}

func httpsClient(caPEM []byte, token string) (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("bad CA PEM")
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	return &http.Client{
		Timeout:   10 * time.Second,
		Transport: bearer{token: token, rt: tr},
	}, nil
}

type bearer struct {
	token string
	rt    http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

func get(c *http.Client, url string) ([]byte, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return b, fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	return b, nil
}

func getOK(c *http.Client, url string) (bool, error) {
	b, err := get(c, url)
	return err == nil && strings.TrimSpace(string(b)) == "ok", err
}

func writeKubeconfig(path, server string, caPEM []byte, token string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kube-testbed
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: kube-testbed
  context:
    cluster: kube-testbed
    user: admin
    namespace: default
current-context: kube-testbed
preferences: {}
`, server, base64.StdEncoding.EncodeToString(caPEM), token)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(cfg), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
