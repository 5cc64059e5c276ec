//! The request methods MCP defines, as one enum: a server parses a request's `method` once
//! and routes on the variant.

/// A request method MCP defines: both eras, both directions, and the extensions roundtrip
/// serves (tasks, skills). A method it does not define has no variant: [`Method::parse`]
/// answers `None`, and a server answers `-32601`.
///
/// ```
/// use roundtrip_wire::Method;
///
/// let method = Method::parse("tools/call").unwrap();
/// assert_eq!(method, Method::ToolsCall);
/// assert_eq!(method.as_str(), "tools/call");
/// assert!(method.is_served_modern());
/// assert!(!Method::Initialize.is_served_modern());
/// assert_eq!(Method::parse("tools/explode"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `initialize` (2025 revisions: opens a session).
    Initialize,
    /// `ping`.
    Ping,
    /// `server/discover` (2026-07-28).
    ServerDiscover,
    /// `tools/list`.
    ToolsList,
    /// `tools/call`.
    ToolsCall,
    /// `prompts/list`.
    PromptsList,
    /// `prompts/get`.
    PromptsGet,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    ResourcesTemplatesList,
    /// `resources/read`.
    ResourcesRead,
    /// `resources/subscribe` (2025 revisions).
    ResourcesSubscribe,
    /// `resources/unsubscribe` (2025 revisions).
    ResourcesUnsubscribe,
    /// `completion/complete`.
    CompletionComplete,
    /// `logging/setLevel` (2025 revisions).
    LoggingSetLevel,
    /// `subscriptions/listen` (2026-07-28).
    SubscriptionsListen,
    /// `tasks/get` (the tasks extension).
    TasksGet,
    /// `tasks/update` (the tasks extension).
    TasksUpdate,
    /// `tasks/cancel` (the tasks extension).
    TasksCancel,
    /// `tasks/list` (the 2025-11-25 tasks).
    TasksList,
    /// `tasks/result` (the 2025-11-25 tasks).
    TasksResult,
    /// `skills/list` (the skills extension).
    SkillsList,
    /// `skills/get` (the skills extension).
    SkillsGet,
    /// `resources/directory/read` (the skills extension).
    ResourcesDirectoryRead,
    /// `sampling/createMessage` (server to client, 2025 revisions).
    SamplingCreateMessage,
    /// `elicitation/create` (server to client, 2025 revisions).
    ElicitationCreate,
    /// `roots/list` (server to client, 2025 revisions).
    RootsList,
}

impl Method {
    /// Every method, in the order above.
    pub const ALL: [Self; 26] = [
        Self::Initialize,
        Self::Ping,
        Self::ServerDiscover,
        Self::ToolsList,
        Self::ToolsCall,
        Self::PromptsList,
        Self::PromptsGet,
        Self::ResourcesList,
        Self::ResourcesTemplatesList,
        Self::ResourcesRead,
        Self::ResourcesSubscribe,
        Self::ResourcesUnsubscribe,
        Self::CompletionComplete,
        Self::LoggingSetLevel,
        Self::SubscriptionsListen,
        Self::TasksGet,
        Self::TasksUpdate,
        Self::TasksCancel,
        Self::TasksList,
        Self::TasksResult,
        Self::SkillsList,
        Self::SkillsGet,
        Self::ResourcesDirectoryRead,
        Self::SamplingCreateMessage,
        Self::ElicitationCreate,
        Self::RootsList,
    ];

    /// The method named `name`, if MCP defines it.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "initialize" => Self::Initialize,
            "ping" => Self::Ping,
            "server/discover" => Self::ServerDiscover,
            "tools/list" => Self::ToolsList,
            "tools/call" => Self::ToolsCall,
            "prompts/list" => Self::PromptsList,
            "prompts/get" => Self::PromptsGet,
            "resources/list" => Self::ResourcesList,
            "resources/templates/list" => Self::ResourcesTemplatesList,
            "resources/read" => Self::ResourcesRead,
            "resources/subscribe" => Self::ResourcesSubscribe,
            "resources/unsubscribe" => Self::ResourcesUnsubscribe,
            "completion/complete" => Self::CompletionComplete,
            "logging/setLevel" => Self::LoggingSetLevel,
            "subscriptions/listen" => Self::SubscriptionsListen,
            "tasks/get" => Self::TasksGet,
            "tasks/update" => Self::TasksUpdate,
            "tasks/cancel" => Self::TasksCancel,
            "tasks/list" => Self::TasksList,
            "tasks/result" => Self::TasksResult,
            "skills/list" => Self::SkillsList,
            "skills/get" => Self::SkillsGet,
            "resources/directory/read" => Self::ResourcesDirectoryRead,
            "sampling/createMessage" => Self::SamplingCreateMessage,
            "elicitation/create" => Self::ElicitationCreate,
            "roots/list" => Self::RootsList,
            _ => return None,
        })
    }

    /// The method's name on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Initialize => "initialize",
            Self::Ping => "ping",
            Self::ServerDiscover => "server/discover",
            Self::ToolsList => "tools/list",
            Self::ToolsCall => "tools/call",
            Self::PromptsList => "prompts/list",
            Self::PromptsGet => "prompts/get",
            Self::ResourcesList => "resources/list",
            Self::ResourcesTemplatesList => "resources/templates/list",
            Self::ResourcesRead => "resources/read",
            Self::ResourcesSubscribe => "resources/subscribe",
            Self::ResourcesUnsubscribe => "resources/unsubscribe",
            Self::CompletionComplete => "completion/complete",
            Self::LoggingSetLevel => "logging/setLevel",
            Self::SubscriptionsListen => "subscriptions/listen",
            Self::TasksGet => "tasks/get",
            Self::TasksUpdate => "tasks/update",
            Self::TasksCancel => "tasks/cancel",
            Self::TasksList => "tasks/list",
            Self::TasksResult => "tasks/result",
            Self::SkillsList => "skills/list",
            Self::SkillsGet => "skills/get",
            Self::ResourcesDirectoryRead => "resources/directory/read",
            Self::SamplingCreateMessage => "sampling/createMessage",
            Self::ElicitationCreate => "elicitation/create",
            Self::RootsList => "roots/list",
        }
    }

    /// Whether a server answers it to a 2026-07-28 request: the era's own methods and the
    /// extensions', not a 2025 session's (`initialize`, `ping`, `logging/setLevel`, resource
    /// subscriptions, the 2025-11-25 tasks) nor the client's.
    pub const fn is_served_modern(self) -> bool {
        matches!(
            self,
            Self::ServerDiscover
                | Self::ToolsList
                | Self::ToolsCall
                | Self::PromptsList
                | Self::PromptsGet
                | Self::ResourcesList
                | Self::ResourcesTemplatesList
                | Self::ResourcesRead
                | Self::CompletionComplete
                | Self::SubscriptionsListen
                | Self::TasksGet
                | Self::TasksUpdate
                | Self::TasksCancel
                | Self::SkillsList
                | Self::SkillsGet
                | Self::ResourcesDirectoryRead
        )
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Method;

    #[test]
    fn every_method_parses_back_from_its_name() {
        for method in Method::ALL {
            assert_eq!(Method::parse(method.as_str()), Some(method));
        }
        assert_eq!(Method::parse("Tools/Call"), None, "names are case-sensitive");
    }
}
