// The report model is plain data (report_model.h); this file anchors the
// target until renderers land.
#include "report/report_model.h"
