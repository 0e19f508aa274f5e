/*
 * pmucal test fixture: SLIT for srat-2node (10 local, 20 remote).
 * Format: [ByteLength]  FieldName : HexFieldValue
 */
[0004]                          Signature : "SLIT"    [System Locality Information Table]
[0004]                       Table Length : 00000000
[0001]                           Revision : 01
[0001]                           Checksum : 00
[0006]                             Oem ID : "PMUCAL"
[0008]                       Oem Table ID : "SLIT2NOD"
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20200925

[0008]                         Localities : 0000000000000002
[0002]                       Locality   0 : 0A 14
[0002]                       Locality   1 : 14 0A
