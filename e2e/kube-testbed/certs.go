package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki holds the file paths and material generated for one test-bed run.
type pki struct {
	CACertFile      string
	CACertPEM       []byte
	ServingCertFile string
	ServingKeyFile  string
	SAKeyFile       string // RSA private key (used for both signing and verification)
	TokenFile       string
	Token           string
}

func writePEM(path, typ string, der []byte, mode os.FileMode) ([]byte, error) {
	b := pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
	return b, os.WriteFile(path, b, mode)
}

func randSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err)
	}
	return n
}

// generatePKI writes a self-signed CA, a serving certificate for 127.0.0.1/localhost
// and the in-cluster service names, an RSA service-account key and a static token file
// with an admin user in group system:masters.
func generatePKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &pki{
		CACertFile:      filepath.Join(dir, "ca.crt"),
		ServingCertFile: filepath.Join(dir, "apiserver.crt"),
		ServingKeyFile:  filepath.Join(dir, "apiserver.key"),
		SAKeyFile:       filepath.Join(dir, "sa.key"),
		TokenFile:       filepath.Join(dir, "tokens.csv"),
	}
	now := time.Now().Add(-time.Hour)
	notAfter := now.Add(10 * 365 * 24 * time.Hour)

	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          randSerial(),
		Subject:               pkix.Name{CommonName: "tooldeck-kube-testbed-ca"},
		NotBefore:             now,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	if p.CACertPEM, err = writePEM(p.CACertFile, "CERTIFICATE", caDER, 0o644); err != nil {
		return nil, err
	}

	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: randSerial(),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{
			"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local",
		},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1"), net.ParseIP("10.0.0.1")},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	if _, err := writePEM(p.ServingCertFile, "CERTIFICATE", srvDER, 0o644); err != nil {
		return nil, err
	}
	srvKeyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		return nil, err
	}
	if _, err := writePEM(p.ServingKeyFile, "EC PRIVATE KEY", srvKeyDER, 0o600); err != nil {
		return nil, err
	}

	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	if _, err := writePEM(p.SAKeyFile, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(saKey), 0o600); err != nil {
		return nil, err
	}

	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	p.Token = hex.EncodeToString(tok)
	// token,user,uid,"group1,group2"
	line := fmt.Sprintf("%s,admin,admin-uid,\"system:masters\"\n", p.Token)
	if err := os.WriteFile(p.TokenFile, []byte(line), 0o600); err != nil {
		return nil, err
	}
	return p, nil
}
