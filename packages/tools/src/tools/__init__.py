"""SupportPilot tools: a JSON-Schema'd registry, per-role allowlists, the outbox and the audit log."""
