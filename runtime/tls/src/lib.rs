//! TLS of the connections [roundtrip](https://docs.rs/roundtrip) opens: `https` with reqwest
//! (the client's HTTP transport and OAuth; the resource server's metadata, JWKS and
//! introspection fetches; OTLP export) and `rediss` with redis (the task store and the replay
//! cache). Both use rustls with its `ring` provider and trust the system's roots through
//! rustls-native-certs, as curl does: the certificates of `SSL_CERT_FILE` and `SSL_CERT_DIR`
//! when either is set, else the operating system's store.
//!
//! A part of roundtrip shared by its crates (roundtrip-client, roundtrip-auth, roundtrip-otel,
//! roundtrip-redis), not an API of its own: applications depend on `roundtrip`, whose features
//! pick what is built. A stdio server (`server,stdio`) builds none of it. Features: `http`
//! (reqwest clients, `http_client`), `redis` (`before_connecting`).

/// `e` and its sources, `outer: inner: innermost`, leaving out a source the text already says.
/// reqwest's own message ("error sending request for url (…)") does not say that the server's
/// certificate was refused, or why; its sources do ("invalid peer certificate: UnknownIssuer").
/// (The walk is roundtrip-wire's: the one crate below both this one and the core, which logs
/// chains too.)
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    roundtrip_wire::error_chain(e)
}

/// The TLS error among `e`'s sources, when a TLS handshake failed: the peer's certificate was
/// refused, or the peer refused the handshake. Sending again fails alike, so such a failure is
/// not retried the way a refused connection is. rustls's error travels inside an `io::Error`
/// (sometimes inside another, and in redis's errors inside an `Arc<dyn Error>`), and both
/// wrappers' `source()` skips the error they wrap: the walk goes into each instead.
pub fn handshake_failure<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    type Shared = std::sync::Arc<dyn std::error::Error + Send + Sync>;
    let mut next = Some(e);
    while let Some(s) = next {
        if let Some(tls) = s.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        next = if let Some(wrapped) = s.downcast_ref::<std::io::Error>().and_then(std::io::Error::get_ref) {
            Some(wrapped as &(dyn std::error::Error + 'static))
        } else if let Some(shared) = s.downcast_ref::<Shared>() {
            Some(&**shared as &(dyn std::error::Error + 'static))
        } else {
            s.source()
        };
    }
    None
}

/// What to do about a refused certificate, for a message: where the roots come from.
pub const TRUSTED_ROOTS: &str = "the server's certificate must chain to a trusted root: those of SSL_CERT_FILE and SSL_CERT_DIR when set, else the system's store";

/// `e` with its sources, and when a certificate was refused, where trusted roots come from.
pub fn explain(e: &(dyn std::error::Error + 'static)) -> String {
    let text = error_chain(e);
    match handshake_failure(e) {
        Some(rustls::Error::InvalidCertificate(_)) => format!("{text} ({TRUSTED_ROOTS})"),
        _ => text,
    }
}

/// A reqwest client as `configure` sets it up, with rustls trusting the system's roots.
///
/// The roots are read once per process (`shared_config`): reqwest would read them again for
/// every client, some 20 ms of CPU each with a few hundred certificates, paid by every
/// `Client::connect_http` and every verifier. When the shared configuration cannot be used,
/// reqwest reads the roots itself; when even that fails (a store whose every certificate is
/// invalid), the client is built without roots and the log says why: `https` requests then fail
/// with a certificate error and `http` still works, where `reqwest::Client::new()` would have
/// panicked. An application that trusts other roots gives its own client
/// (`JwtVerifier::http_client`, `IntrospectionVerifier::http_client`).
#[cfg(feature = "http")]
pub fn http_client(configure: impl Fn(reqwest::ClientBuilder) -> reqwest::ClientBuilder) -> reqwest::Client {
    let shared =
        shared_config().map(|tls| configure(reqwest::Client::builder().use_preconfigured_tls(tls.clone())).build());
    match shared {
        Some(Ok(client)) => return client,
        Some(Err(e)) => {
            tracing::warn!(target: "roundtrip::tls", "the shared TLS configuration is refused: {}", error_chain(&e))
        }
        None => {}
    }
    match configure(reqwest::Client::builder()).build() {
        Ok(client) => client,
        Err(e) => {
            tracing::warn!(
                target: "roundtrip::tls",
                "the system's root certificates cannot be used ({}); https connections will be refused",
                error_chain(&e)
            );
            configure(reqwest::Client::builder().tls_built_in_root_certs(false)).build().unwrap_or_default()
        }
    }
}

/// The rustls configuration of every reqwest client roundtrip builds, made at the first one:
/// the provider the application installed, else `ring` (as reqwest does), and the system's
/// roots (as reqwest's `rustls-tls-native-roots` reads them: certificates that do not parse are
/// left out). `None` when the provider supports no safe protocol version.
#[cfg(feature = "http")]
fn shared_config() -> Option<&'static rustls::ClientConfig> {
    static CONFIG: std::sync::OnceLock<Option<rustls::ClientConfig>> = std::sync::OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let provider = rustls::crypto::CryptoProvider::get_default()
                .cloned()
                .unwrap_or_else(|| std::sync::Arc::new(rustls::crypto::ring::default_provider()));
            let versions = rustls::ClientConfig::builder_with_provider(provider).with_safe_default_protocol_versions();
            let mut config = match versions {
                Ok(builder) => builder.with_root_certificates(system_roots()).with_no_client_auth(),
                Err(e) => {
                    tracing::warn!(target: "roundtrip::tls", "the installed rustls provider is not usable: {e}");
                    return None;
                }
            };
            // What reqwest offers when it builds the configuration itself (it speaks HTTP/1.1 only
            // here: no `http2` feature).
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            Some(config)
        })
        .as_ref()
}

/// The system's roots: `SSL_CERT_FILE` and `SSL_CERT_DIR` when either is set, else the
/// operating system's store (rustls-native-certs).
#[cfg(feature = "http")]
fn system_roots() -> rustls::RootCertStore {
    let found = rustls_native_certs::load_native_certs();
    for e in &found.errors {
        tracing::debug!(target: "roundtrip::tls", "reading the system's root certificates: {e}");
    }
    let mut roots = rustls::RootCertStore::empty();
    let (added, ignored) = roots.add_parsable_certificates(found.certs);
    tracing::debug!(target: "roundtrip::tls", added, ignored, "the system's root certificates");
    if added == 0 {
        tracing::warn!(
            target: "roundtrip::tls",
            "no trusted root certificate found (SSL_CERT_FILE, SSL_CERT_DIR, the system's store): https connections will be refused"
        );
    }
    roots
}

/// Before a Redis client connects: when its URL is `rediss://` (or `valkeys://`), make `ring`
/// the process's rustls provider unless the application installed one.
///
/// redis builds its TLS configuration with `rustls::ClientConfig::builder()`, which takes the
/// process-wide default provider and, when none is installed, picks one from rustls's cargo
/// features, panicking when they enable none or several (an application that also enables
/// `aws-lc-rs` through another crate). Installing `ring` here, before the first connection of
/// the store and of the replay cache, makes that choice explicit. An application that prefers
/// another provider installs it first (`CryptoProvider::install_default` at the start of `main`)
/// and keeps it. reqwest needs none of this: it uses the installed provider or else `ring`.
#[cfg(feature = "redis")]
pub fn before_connecting(client: &redis::Client) {
    if matches!(client.get_connection_info().addr(), redis::ConnectionAddr::TcpTls { .. })
        && rustls::crypto::CryptoProvider::get_default().is_none()
    {
        // Err: another thread installed one meanwhile, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

#[cfg(test)]
mod tests {
    /// reqwest takes the shared configuration (the same rustls as ours: a mismatch would make
    /// every client read the roots again, or fall back to none).
    #[cfg(feature = "http")]
    #[test]
    fn clients_share_one_tls_configuration() {
        let tls = super::shared_config().expect("ring supports the safe protocol versions");
        assert!(std::ptr::eq(tls, super::shared_config().expect("the same")));
        reqwest::Client::builder()
            .use_preconfigured_tls(tls.clone())
            .build()
            .expect("reqwest takes our rustls ClientConfig");
    }

    #[test]
    fn an_error_says_its_sources_once() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("error sending request")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let e = Outer(std::io::Error::other("invalid peer certificate: UnknownIssuer"));
        assert_eq!(super::error_chain(&e), "error sending request: invalid peer certificate: UnknownIssuer");
        let plain = std::io::Error::other("refused");
        assert_eq!(super::error_chain(&plain), "refused");
    }

    #[test]
    fn a_refused_certificate_is_found_inside_io_errors_and_explained() {
        use rustls::{CertificateError, Error};
        let refused = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            Error::InvalidCertificate(CertificateError::UnknownIssuer),
        );
        assert!(matches!(super::handshake_failure(&refused), Some(Error::InvalidCertificate(_))));
        let text = super::explain(&refused);
        assert!(
            text.starts_with("invalid peer certificate: UnknownIssuer (") && text.contains("SSL_CERT_FILE"),
            "{text}"
        );
        // As redis keeps it: an io::Error in an Arc, the source of its own error.
        #[derive(Debug)]
        struct Redis(std::sync::Arc<dyn std::error::Error + Send + Sync>);
        impl std::fmt::Display for Redis {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
        impl std::error::Error for Redis {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let redis = Redis(std::sync::Arc::new(refused));
        assert!(matches!(super::handshake_failure(&redis), Some(Error::InvalidCertificate(_))));
        let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset");
        assert!(super::handshake_failure(&reset).is_none());
        assert_eq!(super::explain(&reset), "reset");
    }
}
