package guardsh

// PLACEHOLDER owned by the strict-profile helper: replace entirely.

type fileStrict struct{}

// StrictConfig is the strict profile's configured allowlist.
type StrictConfig struct{}

func (c *Config) applyStrict(file, src string, f *fileStrict, home string, project bool) error {
	return nil
}
