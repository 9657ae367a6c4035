"""The broker: Mosquitto's configuration (bridges, TLS, firewall, dynamic security), the
embedded broker, and the credentials given and revoked live.
"""
