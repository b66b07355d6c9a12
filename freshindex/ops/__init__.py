"""The operations side: verify, health, metrics, gc, rollback, the versions list."""
