import Foundation
import ReelCLI
exit(ReelCommandLine.main(CommandLine.arguments))
