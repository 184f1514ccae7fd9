// One Verilator context for the whole process, never destroyed: Verilator
// 5.006 deadlocks destroying models after a second context has been used, and
// a failed RTL assertion must end the run with a report, not abort().
#pragma once

class VerilatedContext;

namespace tb {
VerilatedContext* shared_context();
}
