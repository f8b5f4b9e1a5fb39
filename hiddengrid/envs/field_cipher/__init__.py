"""FieldCipher: decode a hex message hidden in a magnetic-field picture.

The package declares the ids it registers here; the env classes and the definition load
from ``env`` on first use, so that ``import hiddengrid`` reads the ids without the kernels.
"""

from hiddengrid.core.definition import Registration, lazy_exports
from hiddengrid.envs.field_cipher.constants import CODEBOOK

ENV_ID = "hiddengrid/FieldCipher-v0"

REGISTRATIONS = (Registration(ENV_ID, "FieldCipherEnv", "FieldCipherVectorEnv"),)

__getattr__ = lazy_exports(__name__, ("DEFINITION", "FieldCipherEnv", "FieldCipherVectorEnv"))
__all__ = [
    "CODEBOOK",
    "DEFINITION",
    "ENV_ID",
    "REGISTRATIONS",
    "FieldCipherEnv",
    "FieldCipherVectorEnv",
]
