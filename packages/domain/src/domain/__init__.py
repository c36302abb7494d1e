"""The SupportPilot domain: orders, shipments, stock, tickets, approvals, the policy KB on SQLite."""
