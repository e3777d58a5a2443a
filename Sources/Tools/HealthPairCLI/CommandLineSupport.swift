@_exported import CommandLineKit
import Posix

// The command model (`CommandConfiguration`, `Arguments`, `UsageError`, `CleanExit`, `ParsableCommand`) lives in
// CommandLineKit, shared with healthpaird, healthpair-bench and healthpair-fuzz; it is re-exported here so every
// command file of this module sees it without importing it.

/// Writes to standard output.
package func out(_ text: String) { Posix.writeStandardOutput(text) }
/// Writes to standard error.
package func err(_ text: String) { Posix.writeStandardError(text) }
