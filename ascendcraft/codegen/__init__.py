"""AscendC code generation: the kernel body printer and the project skeletons around it."""
