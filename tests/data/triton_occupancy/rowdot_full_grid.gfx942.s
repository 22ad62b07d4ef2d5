	.amdgcn_target "amdgpu9.42-amd-amdhsa-unknown-gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	rowdot_kernel                   ; -- Begin function rowdot_kernel
	.p2align	8
	.type	rowdot_kernel,@function
rowdot_kernel:                          ; @rowdot_kernel
.Lfunc_begin0:
	.cfi_sections .debug_frame
	.cfi_startproc
; %bb.8:
	.file	1 "/work/verdicts/tests/data/triton_occupancy" "rowdot.py"
	.loc	1 17 0 prologue_end             ; rowdot.py:17:0
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_load_dwordx8 s[4:11], s[0:1], 0x8
	s_load_dwordx2 s[12:13], s[0:1], 0x28
	s_waitcnt lgkmcnt(0)
	s_branch .LBB0_0
	.loc	1 0 0 is_stmt 0                 ; :0:0
.Ltmp0:
	.p2align	8
; %bb.9:
.LBB0_0:
	.cfi_escape 0x0f, 0x04, 0x30, 0x36, 0xe9, 0x02 ; CFA is 0 in private_wave aspace
	.cfi_undefined 16
.Ltmp1:
	.loc	1 27 5 is_stmt 1                ; rowdot.py:27:5
	v_readfirstlane_b32 s9, v0
	s_mov_b64 s[12:13], s[2:3]
	.loc	1 18 36                         ; rowdot.py:18:36
	v_and_b32_e32 v1, 63, v0
	s_and_b32 s2, s9, 0xc0
	v_or_b32_e32 v27, s2, v1
	s_mov_b64 s[0:1], s[6:7]
	.loc	1 22 5                          ; rowdot.py:22:5
	s_cmp_gt_i32 s8, 0
	v_lshrrev_b32_e32 v26, 1, v27
	s_cbranch_scc1 .LBB0_2
; %bb.1:                                ; %.._crit_edge_crit_edge
	.loc	1 0 5 is_stmt 0                 ; rowdot.py:0:5
	s_mov_b64 s[2:3], 0
	s_branch .LBB0_3
.LBB0_2:
	s_mov_b64 s[2:3], -1
.LBB0_3:                                ; %Flow51
	s_lshl_b32 s10, s14, 6
	s_and_b64 s[2:3], s[2:3], exec
	s_cselect_b32 s2, 1, 0
	s_cmp_lg_u32 s2, 1
	s_cbranch_scc1 .LBB0_6
; %bb.4:                                ; %.lr.ph
	.loc	1 20 42 is_stmt 1               ; rowdot.py:20:42
	v_and_b32_e32 v3, 31, v0
	.loc	1 20 14 is_stmt 0               ; rowdot.py:20:14
	s_mul_i32 s2, s8, s10
	.loc	1 18 36 is_stmt 1               ; rowdot.py:18:36
	v_lshrrev_b32_e32 v4, 5, v27
	.loc	1 20 14                         ; rowdot.py:20:14
	v_lshl_add_u32 v2, v3, 3, s2
	.loc	1 18 36                         ; rowdot.py:18:36
	v_or_b32_e32 v5, 56, v4
	.loc	1 20 14                         ; rowdot.py:20:14
	v_mad_u64_u32 v[10:11], s[2:3], v5, s8, v[2:3]
	.loc	1 18 36                         ; rowdot.py:18:36
	v_or_b32_e32 v5, 48, v4
	.loc	1 20 14                         ; rowdot.py:20:14
	v_mad_u64_u32 v[12:13], s[2:3], v5, s8, v[2:3]
	.loc	1 18 36                         ; rowdot.py:18:36
	v_or_b32_e32 v5, 40, v4
	.loc	1 20 14                         ; rowdot.py:20:14
	v_mad_u64_u32 v[14:15], s[2:3], v5, s8, v[2:3]
	.loc	1 18 36                         ; rowdot.py:18:36
	v_or_b32_e32 v5, 32, v4
	.loc	1 20 14                         ; rowdot.py:20:14
	v_mad_u64_u32 v[16:17], s[2:3], v5, s8, v[2:3]
	.loc	1 18 36                         ; rowdot.py:18:36
	v_or_b32_e32 v5, 24, v4
	.loc	1 20 14                         ; rowdot.py:20:14
	v_mad_u64_u32 v[18:19], s[2:3], v5, s8, v[2:3]
	.loc	1 18 36                         ; rowdot.py:18:36
	v_or_b32_e32 v5, 16, v4
	.loc	1 20 14                         ; rowdot.py:20:14
	v_mad_u64_u32 v[20:21], s[2:3], v5, s8, v[2:3]
	.loc	1 18 36                         ; rowdot.py:18:36
	v_or_b32_e32 v5, 8, v4
	.loc	1 20 14                         ; rowdot.py:20:14
	v_mad_u64_u32 v[22:23], s[2:3], v5, s8, v[2:3]
	v_mad_u64_u32 v[24:25], s[2:3], v4, s8, v[2:3]
	v_and_b32_e32 v2, 7, v0
	v_lshlrev_b32_e32 v4, 4, v2
	v_and_b32_e32 v5, 0x7c, v26
	v_xor_b32_e32 v5, v5, v4
	v_lshlrev_b32_e32 v3, 2, v3
	v_lshlrev_b32_e32 v4, 2, v1
	v_lshl_add_u32 v2, v2, 7, 0
	v_xor_b32_e32 v6, 16, v3
	v_xor_b32_e32 v7, 32, v3
	v_xor_b32_e32 v8, 48, v3
	v_xor_b32_e32 v9, 64, v3
	v_xor_b32_e32 v25, 0x50, v3
	v_xor_b32_e32 v28, 0x60, v3
	v_xor_b32_e32 v29, 0x70, v3
	v_xor_b32_e32 v11, 64, v4
	v_mov_b32_e32 v4, 0
	s_and_b32 s13, s13, 0xffff
	s_mov_b32 s15, 0x27000
	s_mov_b32 s14, 0x7ffffffe
	s_and_b32 s5, s5, 0xffff
	s_mov_b32 s2, 0
	v_add_u32_e32 v13, v2, v5
	v_add_u32_e32 v15, 0, v3
	v_add_u32_e32 v17, 0, v6
	v_add_u32_e32 v19, 0, v7
	v_add_u32_e32 v21, 0, v8
	v_add_u32_e32 v23, 0, v9
	v_add_u32_e32 v25, 0, v25
	v_add_u32_e32 v28, 0, v28
	v_add_u32_e32 v29, 0, v29
	v_mov_b32_e32 v5, v4
	v_mov_b32_e32 v2, v4
	v_mov_b32_e32 v3, v4
	v_mov_b32_e32 v8, v4
	v_mov_b32_e32 v9, v4
	v_mov_b32_e32 v6, v4
	v_mov_b32_e32 v7, v4
.LBB0_5:                                ; =>This Inner Loop Header: Depth=1
	.loc	1 23 13                         ; rowdot.py:23:13
	v_lshlrev_b32_e32 v62, 1, v24
	.loc	1 24 21                         ; rowdot.py:24:21
	v_or_b32_e32 v70, s2, v27
	.loc	1 23 13                         ; rowdot.py:23:13
	v_lshlrev_b32_e32 v63, 1, v22
	v_lshlrev_b32_e32 v64, 1, v20
	v_lshlrev_b32_e32 v65, 1, v18
	v_lshlrev_b32_e32 v66, 1, v16
	v_lshlrev_b32_e32 v67, 1, v14
	v_lshlrev_b32_e32 v68, 1, v12
	v_lshlrev_b32_e32 v69, 1, v10
	.loc	1 24 13                         ; rowdot.py:24:13
	s_mov_b32 s6, s14
	s_mov_b32 s7, s15
	.loc	1 23 13                         ; rowdot.py:23:13
	buffer_load_dwordx4 v[30:33], v62, s[12:15], 0 offen
	buffer_load_dwordx4 v[34:37], v63, s[12:15], 0 offen
	buffer_load_dwordx4 v[38:41], v64, s[12:15], 0 offen
	buffer_load_dwordx4 v[42:45], v65, s[12:15], 0 offen
	buffer_load_dwordx4 v[46:49], v66, s[12:15], 0 offen
	buffer_load_dwordx4 v[50:53], v67, s[12:15], 0 offen
	buffer_load_dwordx4 v[54:57], v68, s[12:15], 0 offen
	buffer_load_dwordx4 v[58:61], v69, s[12:15], 0 offen
	.loc	1 24 13                         ; rowdot.py:24:13
	v_lshlrev_b32_e32 v62, 1, v70
	buffer_load_ushort v94, v62, s[4:7], 0 offen
	.loc	1 25 23                         ; rowdot.py:25:23
	s_barrier
	.loc	1 22 5                          ; rowdot.py:22:5
	s_addk_i32 s2, 0x100
	.loc	1 26 9                          ; rowdot.py:26:9
	v_add_u32_e32 v24, 0x100, v24
	v_add_u32_e32 v22, 0x100, v22
	v_add_u32_e32 v20, 0x100, v20
	v_add_u32_e32 v18, 0x100, v18
	v_add_u32_e32 v16, 0x100, v16
	v_add_u32_e32 v14, 0x100, v14
	v_add_u32_e32 v12, 0x100, v12
	v_add_u32_e32 v10, 0x100, v10
	.loc	1 22 5                          ; rowdot.py:22:5
	s_cmp_lt_i32 s2, s8
	.loc	1 23 13                         ; rowdot.py:23:13
	s_waitcnt vmcnt(8)
	v_cvt_f32_f16_e32 v62, v30
	v_cvt_f32_f16_sdwa v63, v30 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v30, v31
	v_cvt_f32_f16_sdwa v31, v31 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v64, v32
	v_cvt_f32_f16_sdwa v65, v32 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v32, v33
	v_cvt_f32_f16_sdwa v33, v33 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	s_waitcnt vmcnt(7)
	v_cvt_f32_f16_e32 v66, v34
	.loc	1 24 13                         ; rowdot.py:24:13
	s_waitcnt vmcnt(0)
	v_cvt_f32_f16_e32 v94, v94
	.loc	1 23 13                         ; rowdot.py:23:13
	v_cvt_f32_f16_sdwa v67, v34 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v34, v35
	v_cvt_f32_f16_sdwa v35, v35 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v68, v36
	v_cvt_f32_f16_sdwa v69, v36 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v36, v37
	v_cvt_f32_f16_sdwa v37, v37 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v70, v38
	v_cvt_f32_f16_sdwa v71, v38 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v38, v39
	v_cvt_f32_f16_sdwa v39, v39 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v72, v40
	v_cvt_f32_f16_sdwa v73, v40 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v40, v41
	v_cvt_f32_f16_sdwa v41, v41 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v74, v42
	v_cvt_f32_f16_sdwa v75, v42 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v42, v43
	v_cvt_f32_f16_sdwa v43, v43 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v76, v44
	v_cvt_f32_f16_sdwa v77, v44 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v44, v45
	v_cvt_f32_f16_sdwa v45, v45 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v78, v46
	v_cvt_f32_f16_sdwa v79, v46 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v46, v47
	v_cvt_f32_f16_sdwa v47, v47 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v80, v48
	v_cvt_f32_f16_sdwa v81, v48 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v48, v49
	v_cvt_f32_f16_sdwa v49, v49 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v82, v50
	v_cvt_f32_f16_sdwa v83, v50 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v50, v51
	v_cvt_f32_f16_sdwa v51, v51 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v84, v52
	v_cvt_f32_f16_sdwa v85, v52 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v52, v53
	v_cvt_f32_f16_sdwa v53, v53 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v86, v54
	v_cvt_f32_f16_sdwa v87, v54 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v54, v55
	v_cvt_f32_f16_sdwa v55, v55 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v88, v56
	v_cvt_f32_f16_sdwa v89, v56 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v56, v57
	v_cvt_f32_f16_sdwa v57, v57 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v90, v58
	v_cvt_f32_f16_sdwa v91, v58 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v58, v59
	v_cvt_f32_f16_sdwa v59, v59 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v92, v60
	v_cvt_f32_f16_sdwa v93, v60 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	v_cvt_f32_f16_e32 v60, v61
	v_cvt_f32_f16_sdwa v61, v61 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
	.loc	1 25 23                         ; rowdot.py:25:23
	ds_write_b32 v13, v94
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b32 v94, v19 offset:256
	ds_read_b32 v95, v21 offset:384
	ds_read_b32 v96, v15
	ds_read_b32 v98, v28 offset:768
	ds_read_b32 v99, v29 offset:896
	ds_read_b32 v100, v23 offset:512
	ds_read_b32 v101, v25 offset:640
	ds_read_b32 v97, v17 offset:128
	s_waitcnt lgkmcnt(6)
	v_pk_mul_f32 v[30:31], v[94:95], v[30:31]
	v_pk_mul_f32 v[34:35], v[94:95], v[34:35]
	v_pk_mul_f32 v[38:39], v[94:95], v[38:39]
	v_pk_mul_f32 v[42:43], v[94:95], v[42:43]
	v_pk_mul_f32 v[46:47], v[94:95], v[46:47]
	v_pk_mul_f32 v[50:51], v[94:95], v[50:51]
	v_pk_mul_f32 v[54:55], v[94:95], v[54:55]
	v_pk_mul_f32 v[58:59], v[94:95], v[58:59]
	s_waitcnt lgkmcnt(3)
	v_pk_mul_f32 v[32:33], v[98:99], v[32:33]
	v_pk_mul_f32 v[36:37], v[98:99], v[36:37]
	v_pk_mul_f32 v[40:41], v[98:99], v[40:41]
	v_pk_mul_f32 v[44:45], v[98:99], v[44:45]
	v_pk_mul_f32 v[48:49], v[98:99], v[48:49]
	v_pk_mul_f32 v[52:53], v[98:99], v[52:53]
	v_pk_mul_f32 v[56:57], v[98:99], v[56:57]
	v_pk_mul_f32 v[60:61], v[98:99], v[60:61]
.Ltmp2:
	.file	2 "/work/main/.venv/lib/python3.11/site-packages/triton/language" "standard.py"
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot.py:25:16 ]
	s_waitcnt lgkmcnt(0)
	v_pk_fma_f32 v[30:31], v[96:97], v[62:63], v[30:31]
	v_pk_fma_f32 v[34:35], v[96:97], v[66:67], v[34:35]
	v_pk_fma_f32 v[38:39], v[96:97], v[70:71], v[38:39]
	v_pk_fma_f32 v[42:43], v[96:97], v[74:75], v[42:43]
	v_pk_fma_f32 v[46:47], v[96:97], v[78:79], v[46:47]
	v_pk_fma_f32 v[50:51], v[96:97], v[82:83], v[50:51]
	v_pk_fma_f32 v[54:55], v[96:97], v[86:87], v[54:55]
	v_pk_fma_f32 v[58:59], v[96:97], v[90:91], v[58:59]
	v_pk_fma_f32 v[32:33], v[100:101], v[64:65], v[32:33]
	v_pk_fma_f32 v[36:37], v[100:101], v[68:69], v[36:37]
	v_pk_fma_f32 v[40:41], v[100:101], v[72:73], v[40:41]
	v_pk_fma_f32 v[44:45], v[100:101], v[76:77], v[44:45]
	v_pk_fma_f32 v[48:49], v[100:101], v[80:81], v[48:49]
	v_pk_fma_f32 v[52:53], v[100:101], v[84:85], v[52:53]
	v_pk_fma_f32 v[56:57], v[100:101], v[88:89], v[56:57]
	v_pk_fma_f32 v[60:61], v[100:101], v[92:93], v[60:61]
	v_pk_add_f32 v[30:31], v[30:31], v[32:33]
	v_pk_add_f32 v[32:33], v[34:35], v[36:37]
	v_pk_add_f32 v[34:35], v[38:39], v[40:41]
	v_pk_add_f32 v[36:37], v[42:43], v[44:45]
	v_pk_add_f32 v[38:39], v[46:47], v[48:49]
	v_pk_add_f32 v[40:41], v[50:51], v[52:53]
	v_pk_add_f32 v[42:43], v[54:55], v[56:57]
	v_pk_add_f32 v[44:45], v[58:59], v[60:61]
.Ltmp3:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot.py:25:16 ] ]
	v_mov_b32_e32 v46, v30
	v_mov_b32_e32 v47, v32
	v_mov_b32_e32 v32, v31
	v_mov_b32_e32 v30, v34
	v_mov_b32_e32 v31, v36
	v_mov_b32_e32 v36, v35
	v_mov_b32_e32 v34, v38
	v_mov_b32_e32 v35, v40
	v_mov_b32_e32 v40, v39
	v_mov_b32_e32 v38, v42
	v_mov_b32_e32 v39, v44
	v_mov_b32_e32 v44, v43
	v_pk_add_f32 v[32:33], v[46:47], v[32:33]
	v_pk_add_f32 v[30:31], v[30:31], v[36:37]
	v_pk_add_f32 v[34:35], v[34:35], v[40:41]
	v_pk_add_f32 v[36:37], v[38:39], v[44:45]
.Ltmp4:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot.py:25:16 ]
	ds_bpermute_b32 v38, v11, v32
	ds_bpermute_b32 v39, v11, v33
	ds_bpermute_b32 v40, v11, v30
	ds_bpermute_b32 v41, v11, v31
	ds_bpermute_b32 v42, v11, v34
	ds_bpermute_b32 v43, v11, v35
	ds_bpermute_b32 v44, v11, v36
	ds_bpermute_b32 v45, v11, v37
.Ltmp5:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot.py:25:16 ] ]
	s_waitcnt lgkmcnt(6)
	v_pk_add_f32 v[32:33], v[32:33], v[38:39]
	s_waitcnt lgkmcnt(4)
	v_pk_add_f32 v[30:31], v[30:31], v[40:41]
	s_waitcnt lgkmcnt(2)
	v_pk_add_f32 v[34:35], v[34:35], v[42:43]
.Ltmp6:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot.py:25:16 ]
	v_mov_b32_dpp v38, v32 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp7:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot.py:25:16 ] ]
	s_waitcnt lgkmcnt(0)
	v_pk_add_f32 v[36:37], v[36:37], v[44:45]
.Ltmp8:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot.py:25:16 ]
	v_mov_b32_dpp v39, v33 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v40, v30 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v41, v31 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v42, v34 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v43, v35 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v44, v36 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v45, v37 row_ror:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp9:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot.py:25:16 ] ]
	v_pk_add_f32 v[32:33], v[32:33], v[38:39]
	v_pk_add_f32 v[30:31], v[30:31], v[40:41]
	v_pk_add_f32 v[34:35], v[34:35], v[42:43]
	v_pk_add_f32 v[36:37], v[36:37], v[44:45]
.Ltmp10:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot.py:25:16 ]
	v_mov_b32_dpp v38, v32 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v39, v33 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v40, v30 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v41, v31 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v42, v34 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v43, v35 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v44, v36 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v45, v37 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v38, v38 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v39, v39 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v40, v40 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v41, v41 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v42, v42 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v43, v43 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v44, v44 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v45, v45 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp11:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot.py:25:16 ] ]
	v_pk_add_f32 v[32:33], v[32:33], v[38:39]
	v_pk_add_f32 v[30:31], v[30:31], v[40:41]
	v_pk_add_f32 v[34:35], v[34:35], v[42:43]
	v_pk_add_f32 v[36:37], v[36:37], v[44:45]
.Ltmp12:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot.py:25:16 ]
	v_mov_b32_dpp v38, v32 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v39, v33 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v40, v30 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v41, v31 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v42, v34 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v43, v35 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v44, v36 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v45, v37 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp13:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot.py:25:16 ] ]
	v_pk_add_f32 v[32:33], v[32:33], v[38:39]
	v_pk_add_f32 v[30:31], v[30:31], v[40:41]
	v_pk_add_f32 v[34:35], v[34:35], v[42:43]
	v_pk_add_f32 v[36:37], v[36:37], v[44:45]
.Ltmp14:
	.loc	2 314 12                        ; standard.py:314:12 @[ rowdot.py:25:16 ]
	v_mov_b32_dpp v38, v32 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v39, v33 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v40, v30 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v41, v31 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v42, v34 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v43, v35 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v44, v36 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_mov_b32_dpp v45, v37 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp15:
	.loc	2 287 12                        ; standard.py:287:12 @[ standard.py:314:12 @[ rowdot.py:25:16 ] ]
	v_pk_add_f32 v[32:33], v[32:33], v[38:39]
	v_pk_add_f32 v[30:31], v[30:31], v[40:41]
	v_pk_add_f32 v[34:35], v[34:35], v[42:43]
	v_pk_add_f32 v[36:37], v[36:37], v[44:45]
.Ltmp16:
	.loc	1 25 9                          ; rowdot.py:25:9
	v_pk_add_f32 v[6:7], v[6:7], v[32:33]
	v_pk_add_f32 v[8:9], v[8:9], v[30:31]
	v_pk_add_f32 v[2:3], v[2:3], v[34:35]
	v_pk_add_f32 v[4:5], v[4:5], v[36:37]
	.loc	1 22 5                          ; rowdot.py:22:5
	s_cbranch_scc1 .LBB0_5
	s_branch .LBB0_7
.LBB0_6:
	.loc	1 0 5 is_stmt 0                 ; rowdot.py:0:5
	v_mov_b32_e32 v7, 0
	v_mov_b32_e32 v6, v7
	v_mov_b32_e32 v9, v7
	v_mov_b32_e32 v8, v7
	v_mov_b32_e32 v3, v7
	v_mov_b32_e32 v2, v7
	v_mov_b32_e32 v5, v7
	v_mov_b32_e32 v4, v7
.LBB0_7:                                ; %Flow52
	.loc	1 27 5 is_stmt 1                ; rowdot.py:27:5
	v_and_b32_e32 v10, 0x70, v26
	v_add_u32_e32 v10, 0, v10
	s_barrier
	ds_write_b128 v10, v[6:9]
	ds_write_b128 v10, v[2:5] offset:128
	v_lshlrev_b32_e32 v2, 4, v0
	v_and_b32_e32 v2, 0x70, v2
	v_lshrrev_b32_e32 v3, 1, v0
	v_lshlrev_b32_e32 v0, 2, v0
	v_and_b32_e32 v3, 12, v3
	v_and_b32_e32 v0, 0x80, v0
	v_add_u32_e32 v2, 0, v2
	v_add3_u32 v0, v2, v0, v3
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b32 v2, v0
	s_lshr_b32 s4, s9, 6
	s_and_b32 s1, s1, 0xffff
	.loc	1 27 14 is_stmt 0               ; rowdot.py:27:14
	v_or_b32_e32 v1, s10, v1
	.loc	1 27 5                          ; rowdot.py:27:5
	s_cmp_eq_u32 s4, 0
	v_lshlrev_b32_e32 v0, 2, v1
	v_bfrev_b32_e32 v1, 1
	s_cselect_b64 vcc, -1, 0
	s_mov_b32 s3, 0x27000
	s_mov_b32 s2, 0x7ffffffe
	v_cndmask_b32_e32 v0, v1, v0, vcc
	s_waitcnt lgkmcnt(0)
	buffer_store_dword v2, v0, s[0:3], 0 offen
	.loc	1 17 1 is_stmt 1                ; rowdot.py:17:1
	s_endpgm
.Ltmp17:
.Lfunc_end0:
	.size	rowdot_kernel, .Lfunc_end0-rowdot_kernel
	.cfi_endproc
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel rowdot_kernel
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 48
		.amdhsa_user_sgpr_count 14
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 12
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 102
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 104
		.amdhsa_reserve_vcc 1
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
                                        ; -- End function
	.set .Lrowdot_kernel.num_vgpr, 102
	.set .Lrowdot_kernel.num_agpr, 0
	.set .Lrowdot_kernel.numbered_sgpr, 16
	.set .Lrowdot_kernel.num_named_barrier, 0
	.set .Lrowdot_kernel.private_seg_size, 0
	.set .Lrowdot_kernel.uses_vcc, 1
	.set .Lrowdot_kernel.uses_flat_scratch, 0
	.set .Lrowdot_kernel.has_dyn_sized_stack, 0
	.set .Lrowdot_kernel.has_recursion, 0
	.set .Lrowdot_kernel.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 2504
; TotalNumSgprs: 22
; NumVgprs: 102
; NumAgprs: 0
; TotalNumVgprs: 102
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 2
; VGPRBlocks: 12
; NumSGPRsForWavesPerEU: 22
; NumVGPRsForWavesPerEU: 102
; AccumOffset: 104
; Occupancy: 4
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 14
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 25
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 0
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 0
	.set amdgpu.max_num_named_barrier, 0
	.text
	.section	.debug_abbrev,"",@progbits
	.byte	1                               ; Abbreviation Code
	.byte	17                              ; DW_TAG_compile_unit
	.byte	1                               ; DW_CHILDREN_yes
	.byte	37                              ; DW_AT_producer
	.byte	14                              ; DW_FORM_strp
	.byte	19                              ; DW_AT_language
	.byte	5                               ; DW_FORM_data2
	.byte	3                               ; DW_AT_name
	.byte	14                              ; DW_FORM_strp
	.byte	16                              ; DW_AT_stmt_list
	.byte	23                              ; DW_FORM_sec_offset
	.byte	27                              ; DW_AT_comp_dir
	.byte	14                              ; DW_FORM_strp
	.ascii	"\341\177"                      ; DW_AT_APPLE_optimized
	.byte	25                              ; DW_FORM_flag_present
	.byte	17                              ; DW_AT_low_pc
	.byte	1                               ; DW_FORM_addr
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	2                               ; Abbreviation Code
	.byte	46                              ; DW_TAG_subprogram
	.byte	0                               ; DW_CHILDREN_no
	.byte	3                               ; DW_AT_name
	.byte	14                              ; DW_FORM_strp
	.byte	32                              ; DW_AT_inline
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	3                               ; Abbreviation Code
	.byte	46                              ; DW_TAG_subprogram
	.byte	1                               ; DW_CHILDREN_yes
	.byte	17                              ; DW_AT_low_pc
	.byte	1                               ; DW_FORM_addr
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	4                               ; Abbreviation Code
	.byte	29                              ; DW_TAG_inlined_subroutine
	.byte	1                               ; DW_CHILDREN_yes
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	17                              ; DW_AT_low_pc
	.byte	1                               ; DW_FORM_addr
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	88                              ; DW_AT_call_file
	.byte	11                              ; DW_FORM_data1
	.byte	89                              ; DW_AT_call_line
	.byte	11                              ; DW_FORM_data1
	.byte	87                              ; DW_AT_call_column
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	5                               ; Abbreviation Code
	.byte	29                              ; DW_TAG_inlined_subroutine
	.byte	0                               ; DW_CHILDREN_no
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	85                              ; DW_AT_ranges
	.byte	23                              ; DW_FORM_sec_offset
	.byte	88                              ; DW_AT_call_file
	.byte	11                              ; DW_FORM_data1
	.byte	89                              ; DW_AT_call_line
	.byte	5                               ; DW_FORM_data2
	.byte	87                              ; DW_AT_call_column
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	0                               ; EOM(3)
	.section	.debug_info,"",@progbits
.Lcu_begin0:
	.long	.Ldebug_info_end0-.Ldebug_info_start0 ; Length of Unit
.Ldebug_info_start0:
	.short	4                               ; DWARF version number
	.long	.debug_abbrev                   ; Offset Into Abbrev. Section
	.byte	8                               ; Address Size (in bytes)
	.byte	1                               ; Abbrev [1] 0xb:0x5a DW_TAG_compile_unit
	.long	.Linfo_string0                  ; DW_AT_producer
	.short	2                               ; DW_AT_language
	.long	.Linfo_string1                  ; DW_AT_name
	.long	.Lline_table_start0             ; DW_AT_stmt_list
	.long	.Linfo_string2                  ; DW_AT_comp_dir
                                        ; DW_AT_APPLE_optimized
	.quad	.Lfunc_begin0                   ; DW_AT_low_pc
	.long	.Lfunc_end0-.Lfunc_begin0       ; DW_AT_high_pc
	.byte	2                               ; Abbrev [2] 0x2a:0x6 DW_TAG_subprogram
	.long	.Linfo_string3                  ; DW_AT_name
	.byte	1                               ; DW_AT_inline
	.byte	3                               ; Abbrev [3] 0x30:0x34 DW_TAG_subprogram
	.quad	.Lfunc_begin0                   ; DW_AT_low_pc
	.long	.Lfunc_end0-.Lfunc_begin0       ; DW_AT_high_pc
	.long	42                              ; DW_AT_abstract_origin
	.byte	4                               ; Abbrev [4] 0x41:0x22 DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.quad	.Ltmp2                          ; DW_AT_low_pc
	.long	.Ltmp16-.Ltmp2                  ; DW_AT_high_pc
	.byte	1                               ; DW_AT_call_file
	.byte	25                              ; DW_AT_call_line
	.byte	16                              ; DW_AT_call_column
	.byte	5                               ; Abbrev [5] 0x55:0xd DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges0                 ; DW_AT_ranges
	.byte	2                               ; DW_AT_call_file
	.short	314                             ; DW_AT_call_line
	.byte	12                              ; DW_AT_call_column
	.byte	0                               ; End Of Children Mark
	.byte	0                               ; End Of Children Mark
	.byte	0                               ; End Of Children Mark
.Ldebug_info_end0:
	.section	.debug_ranges,"",@progbits
.Ldebug_ranges0:
	.quad	.Ltmp3-.Lfunc_begin0
	.quad	.Ltmp4-.Lfunc_begin0
	.quad	.Ltmp5-.Lfunc_begin0
	.quad	.Ltmp6-.Lfunc_begin0
	.quad	.Ltmp7-.Lfunc_begin0
	.quad	.Ltmp8-.Lfunc_begin0
	.quad	.Ltmp9-.Lfunc_begin0
	.quad	.Ltmp10-.Lfunc_begin0
	.quad	.Ltmp11-.Lfunc_begin0
	.quad	.Ltmp12-.Lfunc_begin0
	.quad	.Ltmp13-.Lfunc_begin0
	.quad	.Ltmp14-.Lfunc_begin0
	.quad	.Ltmp15-.Lfunc_begin0
	.quad	.Ltmp16-.Lfunc_begin0
	.quad	0
	.quad	0
	.section	.debug_str,"MS",@progbits,1
.Linfo_string0:
	.asciz	"triton"                        ; string offset=0 ; triton
.Linfo_string1:
	.asciz	"rowdot.py"                     ; string offset=7 ; rowdot.py
.Linfo_string2:
	.asciz	"/work/verdicts/tests/data/triton_occupancy" ; string offset=17 ; /work/verdicts/tests/data/triton_occupancy
.Linfo_string3:
	.asciz	"rowdot_kernel"                 ; string offset=60 ; rowdot_kernel
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
      - .offset:         24
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .offset:         32
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         40
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 48
    .max_flat_workgroup_size: 256
    .name:           rowdot_kernel
    .private_segment_fixed_size: 0
    .sgpr_count:     22
    .sgpr_spill_count: 0
    .symbol:         rowdot_kernel.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     102
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgpu9.42-amd-amdhsa-unknown-gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
	.section	.debug_line,"",@progbits
.Lline_table_start0:
