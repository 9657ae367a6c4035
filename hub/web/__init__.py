"""The web tier: the dashboard's server and API, authentication, roles and the TD team's accounts."""
