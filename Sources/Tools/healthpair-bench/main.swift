import Bench
import Posix

Posix.ignoreBrokenPipe()
Posix.exitImmediately(BenchMain.main(Array(CommandLine.arguments.dropFirst())))
