package main

import (
	"fmt"
	"net"
	"net/url"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/logutil"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// etcdLogLevel controls the embedded etcd's zap logger; it is raised to FATAL
// right before shutdown so the expected "server closed" errors stay quiet.
var etcdLogLevel = zap.NewAtomicLevelAt(zapcore.ErrorLevel)

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startEtcd starts an embedded single-member etcd with its data in dir and returns
// the server and its client URL (http://127.0.0.1:PORT).
func startEtcd(dir string) (*embed.Etcd, string, error) {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		clientPort, err := freePort()
		if err != nil {
			return nil, "", err
		}
		peerPort, err := freePort()
		if err != nil {
			return nil, "", err
		}
		cu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", clientPort))
		pu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", peerPort))

		cfg := embed.NewConfig()
		cfg.Name = "testbed"
		cfg.Dir = dir
		cfg.ListenClientUrls = []url.URL{*cu}
		cfg.AdvertiseClientUrls = []url.URL{*cu}
		cfg.ListenPeerUrls = []url.URL{*pu}
		cfg.AdvertisePeerUrls = []url.URL{*pu}
		cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
		cfg.Logger = "zap"
		cfg.LogLevel = "error"
		cfg.LogOutputs = []string{"stderr"}
		zc := logutil.DefaultZapLoggerConfig
		zc.Level = etcdLogLevel
		zc.OutputPaths = []string{"stderr"}
		zc.ErrorOutputPaths = []string{"stderr"}
		lg, err := zc.Build()
		if err != nil {
			return nil, "", err
		}
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(lg)
		cfg.UnsafeNoFsync = true // throw-away test data; much faster on slow disks

		e, err := embed.StartEtcd(cfg)
		if err != nil {
			lastErr = err
			continue
		}
		select {
		case <-e.Server.ReadyNotify():
			return e, cu.String(), nil
		case err := <-e.Err():
			e.Close()
			lastErr = err
		case <-time.After(60 * time.Second):
			e.Server.Stop()
			e.Close()
			lastErr = fmt.Errorf("etcd did not become ready within 60s")
		}
	}
	return nil, "", fmt.Errorf("starting embedded etcd: %w", lastErr)
}
