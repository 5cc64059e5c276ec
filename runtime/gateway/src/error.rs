//! Why a gateway could not be put together.

/// Why a gateway could not be put together.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GatewayError {
    /// The upstream could not be reached, or did not complete the handshake.
    #[error("could not connect to the upstream: {0}")]
    Connect(#[source] roundtrip_client::ClientError),
    /// The upstream's lists could not be read.
    #[error("could not list what the upstream offers: {0}")]
    List(#[source] roundtrip_client::ClientError),
    /// The upstream's items clash with the gateway's, or the namespace is not one.
    #[error("could not mount the upstream: {0}")]
    Mount(#[source] roundtrip_core::server::CheckError),
    /// The upstream's skills do not make a tree the gateway can serve.
    #[error("could not serve the upstream's skills: {0}")]
    Skills(#[source] roundtrip_core::skills::SkillsError),
    /// The configuration file could not be read, or says something that is not a gateway.
    #[error("{0}")]
    Config(String),
}
