"""tidepool: the pieces a small network service is made of."""
