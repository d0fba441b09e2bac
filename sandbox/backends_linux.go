package sandbox

// Backends lists the backends of this platform in the order guardsh tries
// them.
func Backends() []string { return []string{BackendLandlock, BackendBwrap, BackendContainer} }
