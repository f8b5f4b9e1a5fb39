"""FieldCipher: decode a hex message hidden in a magnetic-field picture."""

from hiddengrid.envs.field_cipher.constants import CODEBOOK
from hiddengrid.envs.field_cipher.env import (
    DEFINITION,
    ENV_ID,
    FieldCipherEnv,
    FieldCipherVectorEnv,
)

__all__ = ["CODEBOOK", "DEFINITION", "ENV_ID", "FieldCipherEnv", "FieldCipherVectorEnv"]
