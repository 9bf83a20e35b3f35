"""Ruby core stub and the built-in example project (data files, no code)."""
