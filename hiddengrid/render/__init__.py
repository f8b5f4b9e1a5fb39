"""Drawing helpers shared by the envs' pictures: NumPy-only shapes and font, the pygame window."""
