package sim

// ProcessCPUForTest exposes processCPU to the external test package.
var ProcessCPUForTest = processCPU
