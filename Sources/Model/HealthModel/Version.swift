/// HealthPair's release version: the one place it is written. `healthpair --version`, `healthpaird --version`, the
/// daemon's `hello` answer and the harness's check of a found `healthpaird` all read it.
package enum HealthPairVersion {
  /// The version, `major.minor.patch` (see CHANGELOG.md).
  package static let current = "0.2.0"
}
