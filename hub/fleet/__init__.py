"""The tables' devices: enrollment, health, orders, software updates, the hub's signing key and
its mDNS announcement.
"""
