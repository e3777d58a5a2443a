import HealthPairCLI
import Posix

Posix.ignoreBrokenPipe()
Posix.exitImmediately(HealthPairCommandLine.main(Array(CommandLine.arguments.dropFirst())))
