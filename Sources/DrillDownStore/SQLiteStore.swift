import DrillDownCore
import GRDB
