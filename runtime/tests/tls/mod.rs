//! Test support for TLS: a certificate authority made in the test (rcgen, ring), and a server
//! certificate it signs for `localhost` and `127.0.0.1`. Nothing here is trusted by the system:
//! a client reaches a server with these certificates only when given the CA.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose,
};

/// A CA and one server certificate it signed.
pub struct TestCa {
    /// The CA's certificate (PEM): what a client must trust.
    pub ca_pem: String,
    /// The server's certificate (PEM), for `localhost` and `127.0.0.1`.
    pub server_pem: String,
    /// The server's private key (PKCS#8 PEM).
    pub server_key_pem: String,
    server_der: Vec<u8>,
    server_key_der: Vec<u8>,
}

impl TestCa {
    pub fn new() -> Self {
        let ca_key = KeyPair::generate().unwrap();
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.distinguished_name.push(DnType::CommonName, "roundtrip test CA");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_cert = ca.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca, ca_key);

        let server_key = KeyPair::generate().unwrap();
        // "127.0.0.1" becomes an IP address name, "localhost" a DNS name.
        let mut server = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
        server.distinguished_name.push(DnType::CommonName, "localhost");
        server.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let server_cert = server.signed_by(&server_key, &issuer).unwrap();
        Self {
            ca_pem: ca_cert.pem(),
            server_pem: server_cert.pem(),
            server_key_pem: server_key.serialize_pem(),
            server_der: server_cert.der().to_vec(),
            server_key_der: server_key.serialize_der(),
        }
    }

    /// The CA as a root certificate for a reqwest client.
    pub fn root(&self) -> reqwest::Certificate {
        reqwest::Certificate::from_pem(self.ca_pem.as_bytes()).unwrap()
    }

    /// A rustls server configuration (ring) presenting the server certificate.
    pub fn server_config(&self) -> std::sync::Arc<tokio_rustls::rustls::ServerConfig> {
        use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
        let provider = std::sync::Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let config = tokio_rustls::rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(self.server_der.clone())],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.server_key_der.clone())),
            )
            .unwrap();
        std::sync::Arc::new(config)
    }

    /// Write `ca.pem`, `server.pem` and `server.key` into `dir`; their paths in that order.
    pub fn write_to(&self, dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
        let paths = (dir.join("ca.pem"), dir.join("server.pem"), dir.join("server.key"));
        std::fs::write(&paths.0, &self.ca_pem).unwrap();
        std::fs::write(&paths.1, &self.server_pem).unwrap();
        std::fs::write(&paths.2, &self.server_key_pem).unwrap();
        paths
    }
}

/// A directory of this test, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("roundtrip-{name}-{}-{}", std::process::id(), uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
